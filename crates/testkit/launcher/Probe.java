// Readiness probe for the test HBase, run by hbase-local.sh in Java's source-file mode
// with HBase's own classpath. It makes real Thrift2 calls (listNamespaces, then
// tableExists on hbase:meta) with the transport and protocol the server was started
// with, retrying until they answer or the deadline passes.
//
//   java -cp CLASSPATH Probe.java HOST PORT FRAMED(true|false) COMPACT(true|false) TIMEOUT_SECONDS
//   java -cp CONF_DIR:CLASSPATH Probe.java native TIMEOUT_SECONDS
//
// The second form (an HBase started without a gateway) asks the same through HBase's
// Java client, which finds the cluster from the hbase-site.xml of CONF_DIR.
//
// Exit 0 when HBase answers, 1 when the deadline passed, 2 on bad arguments.

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.thrift2.generated.THBaseService;
import org.apache.hadoop.hbase.thrift2.generated.TTableName;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;

public class Probe {
  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("native")) {
      System.exit(probeNative(Long.parseLong(args[1])));
    }
    if (args.length != 5) {
      System.err.println("usage: Probe HOST PORT FRAMED COMPACT TIMEOUT_SECONDS");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    boolean framed = Boolean.parseBoolean(args[2]);
    boolean compact = Boolean.parseBoolean(args[3]);
    long deadline = System.currentTimeMillis() + Long.parseLong(args[4]) * 1000L;
    String last = "no attempt yet";
    while (System.currentTimeMillis() < deadline) {
      TTransport transport = null;
      try {
        TSocket socket = new TSocket(new TConfiguration(), host, port, 10_000);
        transport = framed ? new TFramedTransport(socket) : socket;
        transport.open();
        TProtocol protocol = compact ? new TCompactProtocol(transport) : new TBinaryProtocol(transport);
        THBaseService.Client client = new THBaseService.Client(protocol);
        List<String> namespaces = client.listNamespaces();
        TTableName meta = new TTableName(ByteBuffer.wrap("meta".getBytes("UTF-8")));
        meta.setNs("hbase".getBytes("UTF-8"));
        if (namespaces.contains("default") && client.tableExists(meta)) {
          System.out.println("ready: namespaces " + namespaces);
          System.exit(0);
        }
        last = "namespaces not ready yet: " + namespaces;
      } catch (Exception e) {
        last = e.toString();
      } finally {
        if (transport != null) {
          transport.close();
        }
      }
      Thread.sleep(500);
    }
    System.err.println("HBase did not answer a Thrift2 call in time; last error: " + last);
    System.exit(1);
  }

  /** Lists namespaces and looks for hbase:meta through the Java client; 0 once both answer. */
  static int probeNative(long timeoutSeconds) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutSeconds * 1000L;
    Configuration conf = HBaseConfiguration.create();
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("hbase.rpc.timeout", 10_000);
    conf.setInt("hbase.client.operation.timeout", 10_000);
    String last = "no attempt yet";
    while (System.currentTimeMillis() < deadline) {
      try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
        NamespaceDescriptor[] namespaces = admin.listNamespaceDescriptors();
        boolean hasDefault = Arrays.stream(namespaces).anyMatch(n -> n.getName().equals("default"));
        if (hasDefault && admin.tableExists(TableName.META_TABLE_NAME)) {
          System.out.println("ready: " + namespaces.length + " namespaces over native RPC");
          return 0;
        }
        last = "namespaces not ready yet";
      } catch (Exception e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    System.err.println("HBase did not answer over its RPC in time; last error: " + last);
    return 1;
  }
}
