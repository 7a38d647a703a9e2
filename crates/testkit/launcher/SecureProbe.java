// Readiness probe and reference client for the secured Thrift2 gateways that secure.sh
// starts. Run in Java's source-file mode with HBase's classpath. It is the non-Basalt
// client that proves each security mode on the server side: Apache Thrift's own Java
// transports (TSocket over an SSLSocket, THttpClient, TSaslClientTransport with GSSAPI),
// the JDK's TLS and Kerberos, and the same two calls as Probe.java.
//
//   java -cp CP SecureProbe.java hostname
//       print the host name the Thrift server uses for its Kerberos principal (_HOST)
//   java -cp CP [props] SecureProbe.java call HOST PORT FRAMED COMPACT TIMEOUT_SECONDS
//       retry listNamespaces + tableExists(hbase:meta) until they answer
//
// System properties for call:
//   probe.transport   socket | http                      (default socket)
//   probe.tls         true: TLS (HTTPS for http)          (default false)
//   probe.truststore  PKCS12 trust store with the run's CA (password: probe.truststore.password)
//   probe.qop         auth | auth-int | auth-conf: SASL GSSAPI (socket) or SPNEGO (http)
//   probe.principal, probe.keytab   the client's Kerberos identity
//   probe.service     service part of the server principal (default hbase)
//   probe.server.host host part of the server principal (default HOST)
//   java.security.krb5.conf   the run's krb5.conf
//
// Exit 0 when HBase answers, 1 when the deadline passed, 2 on bad arguments.

import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.sasl.Sasl;
import org.apache.hadoop.hbase.thrift2.generated.THBaseService;
import org.apache.hadoop.hbase.thrift2.generated.TTableName;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;

public class SecureProbe {
  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("hostname")) {
      String host = org.apache.hadoop.hbase.util.DNS.getDefaultHost("default", "default");
      System.out.println(org.apache.hadoop.hbase.util.Strings.domainNamePointerToHostName(host));
      return;
    }
    if (args.length != 6 || !args[0].equals("call")) {
      System.err.println("usage: SecureProbe hostname | call HOST PORT FRAMED COMPACT TIMEOUT_SECONDS");
      System.exit(2);
    }
    String host = args[1];
    int port = Integer.parseInt(args[2]);
    boolean framed = Boolean.parseBoolean(args[3]);
    boolean compact = Boolean.parseBoolean(args[4]);
    long deadline = System.currentTimeMillis() + Long.parseLong(args[5]) * 1000L;
    String truststore = System.getProperty("probe.truststore");
    if (truststore != null) {
      System.setProperty("javax.net.ssl.trustStore", truststore);
      System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
      System.setProperty("javax.net.ssl.trustStorePassword",
          System.getProperty("probe.truststore.password", "changeit"));
    }
    Subject subject = login();
    String last = "no attempt yet";
    while (System.currentTimeMillis() < deadline) {
      try {
        PrivilegedExceptionAction<String> attempt = () -> attempt(host, port, framed, compact);
        String result = subject == null ? attempt.run() : Subject.doAs(subject, attempt);
        if (result == null) {
          System.out.println("ready");
          System.exit(0);
        }
        last = result;
      } catch (Exception e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
          cause = cause.getCause();
        }
        last = e + (cause != e ? " (cause: " + cause + ")" : "");
      }
      Thread.sleep(500);
    }
    System.err.println("the secured gateway did not answer a Thrift2 call in time; last error: " + last);
    System.exit(1);
  }

  /** Logs in from the keytab when a Kerberos mode is asked for; null otherwise. */
  static Subject login() throws Exception {
    if (System.getProperty("probe.qop") == null) {
      return null;
    }
    Map<String, String> options = new HashMap<>();
    options.put("useKeyTab", "true");
    options.put("keyTab", System.getProperty("probe.keytab"));
    options.put("principal", System.getProperty("probe.principal"));
    options.put("storeKey", "true");
    options.put("doNotPrompt", "true");
    options.put("refreshKrb5Config", "true");
    Configuration config = new Configuration() {
      @Override
      public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
        return new AppConfigurationEntry[] {new AppConfigurationEntry(
            "com.sun.security.auth.module.Krb5LoginModule",
            AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
      }
    };
    LoginContext context = new LoginContext("probe", new Subject(), null, config);
    context.login();
    return context.getSubject();
  }

  /** One connection and two calls; null when HBase answered, else why not. */
  static String attempt(String host, int port, boolean framed, boolean compact) throws Exception {
    boolean tls = Boolean.parseBoolean(System.getProperty("probe.tls", "false"));
    String qop = System.getProperty("probe.qop");
    TTransport transport;
    if ("http".equals(System.getProperty("probe.transport", "socket"))) {
      // THttpClient over HttpURLConnection: the JDK does HTTPS and SPNEGO (Negotiate)
      // with the Subject's Kerberos credentials.
      // SPNEGO asks for HTTP/<URL host>: use the server principal's host name.
      String urlHost = qop != null ? System.getProperty("probe.server.host", host) : host;
      transport = new THttpClient((tls ? "https" : "http") + "://" + urlHost + ":" + port + "/");
    } else {
      TSocket socket;
      if (tls) {
        SSLSocket ssl = (SSLSocket) SSLSocketFactory.getDefault().createSocket(host, port);
        javax.net.ssl.SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(params);
        ssl.setSoTimeout(10_000);
        ssl.startHandshake();
        socket = new TSocket(ssl);
      } else {
        socket = new TSocket(new TConfiguration(), host, port, 10_000);
      }
      transport = socket;
      if (qop != null) {
        Map<String, String> props = new HashMap<>();
        props.put(Sasl.QOP, qop);
        props.put(Sasl.SERVER_AUTH, "true");
        transport = new TSaslClientTransport("GSSAPI", null,
            System.getProperty("probe.service", "hbase"),
            System.getProperty("probe.server.host", host), props, null, transport);
      }
      if (framed) {
        transport = new TFramedTransport(transport);
      }
    }
    try {
      if (!transport.isOpen()) {
        transport.open();
      }
      TProtocol protocol = compact ? new TCompactProtocol(transport) : new TBinaryProtocol(transport);
      THBaseService.Client client = new THBaseService.Client(protocol);
      List<String> namespaces = client.listNamespaces();
      TTableName meta = new TTableName(ByteBuffer.wrap("meta".getBytes("UTF-8")));
      meta.setNs("hbase".getBytes("UTF-8"));
      if (namespaces.contains("default") && client.tableExists(meta)) {
        return null;
      }
      return "namespaces not ready yet: " + namespaces;
    } finally {
      transport.close();
    }
  }
}
