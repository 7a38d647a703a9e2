// Answers administrative questions about the test HBase with HBase's own Java client
// (`Admin`), so that Basalt's admin tests check each effect through a second path that
// does not need the Thrift gateway. Run by `hbase-local.sh regions --dir DIR --tool
// AdminProbe` in Java's source-file mode with the run directory's conf and HBase's
// classpath; it reaches HBase through ZooKeeper and the master like any Java application.
//
// One question per line on stdin, one answer line per question on stdout: "AP ok BODY"
// or "AP err MESSAGE" (HBase's log lines may be interleaved; answers start with "AP ").
// Row keys are lower-case hex, "." for empty. In KEY=VALUE tokens and names, every byte
// outside [A-Za-z0-9_.:,/+-] is written %XX. Questions:
//   servers                   live region servers' RPC addresses: "ok HOST:PORT ..." (sorted)
//   namespaces                "ok NAME ..." (sorted)
//   namespace NS              "ok KEY=VALUE ..." (its configuration, sorted); a missing one: "ok missing"
//   tables NS                 "ok NAME ..." (sorted, namespace:qualifier)
//   exists TABLE              "ok true|false"
//   enabled TABLE             "ok true|false"
//   table TABLE               the descriptor: "ok table KEY=VALUE ... family NAME KEY=VALUE ... ..."
//                             (the table's and each family's stored values, with the typed
//                             settings' effective values by HBase's names)
//   regions TABLE             the regions open on the live servers, every replica:
//                             "ok STARTHEX/REPLICA@HOST:PORT ..." (sorted by start key, replica)
//   storefiles TABLE STARTHEX the store files of the primary replica of the region starting at
//                             START, as its region server counts them now: "ok N"
//   snapshots                 "ok NAME@TABLE ..." (sorted)
//   balancer                  "ok true|false"
//   cluster                   "ok version=V master=HOST:PORT live=HOST:PORT,... dead=HOST:PORT,...
//                             rit=N balancer=true|false" (lists sorted; "-" for none)
//   get TABLE ROWHEX FAM QUAL the cell's value: "ok VALUEHEX" ("." for empty) or "ok none"
//   rows TABLE                the rows of a full scan: "ok N"
//   quit                      exits
//
//   java -cp CONF:CLASSPATH AdminProbe.java

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;

public class AdminProbe {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    // A question about something gone should fail in seconds, not after the default retries.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.client.operation.timeout", 30_000);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.out.println("AP ok ready");
      System.out.flush();
      String line;
      while ((line = in.readLine()) != null) {
        String[] w = line.trim().split("\\s+");
        if (w.length == 0 || w[0].isEmpty()) {
          continue;
        }
        if (w[0].equals("quit")) {
          break;
        }
        String answer;
        try {
          answer = "AP ok " + run(connection, admin, w);
        } catch (Exception e) {
          answer = "AP err " + e.toString().replace('\n', ' ');
        }
        System.out.println(answer);
        System.out.flush();
      }
    }
  }

  private static String run(Connection connection, Admin admin, String[] w) throws Exception {
    switch (w[0]) {
      case "servers":
        return servers(admin);
      case "namespaces": {
        List<String> out = new ArrayList<>();
        for (NamespaceDescriptor ns : admin.listNamespaceDescriptors()) {
          out.add(esc(ns.getName()));
        }
        return sorted(out);
      }
      case "namespace":
        need(w, 2);
        return namespace(admin, w[1]);
      case "tables": {
        need(w, 2);
        List<String> out = new ArrayList<>();
        for (TableName t : admin.listTableNamesByNamespace(w[1])) {
          out.add(esc(t.getNameAsString()));
        }
        return sorted(out);
      }
      case "exists":
        need(w, 2);
        return Boolean.toString(admin.tableExists(TableName.valueOf(w[1])));
      case "enabled":
        need(w, 2);
        return Boolean.toString(admin.isTableEnabled(TableName.valueOf(w[1])));
      case "table":
        need(w, 2);
        return descriptor(admin.getDescriptor(TableName.valueOf(w[1])));
      case "regions":
        need(w, 2);
        return regions(admin, TableName.valueOf(w[1]));
      case "storefiles":
        need(w, 3);
        return Integer.toString(storeFiles(admin, TableName.valueOf(w[1]), unhex(w[2])));
      case "snapshots": {
        List<String> out = new ArrayList<>();
        for (SnapshotDescription s : admin.listSnapshots()) {
          out.add(esc(s.getName()) + "@" + esc(s.getTableNameAsString()));
        }
        return sorted(out);
      }
      case "balancer":
        return Boolean.toString(admin.isBalancerEnabled());
      case "cluster":
        return cluster(admin);
      case "get":
        need(w, 5);
        return get(connection, TableName.valueOf(w[1]), unhex(w[2]), unhex(w[3]), unhex(w[4]));
      case "rows":
        need(w, 2);
        return Integer.toString(rows(connection, TableName.valueOf(w[1])));
      default:
        throw new IllegalArgumentException("unknown question " + w[0]);
    }
  }

  private static void need(String[] w, int n) {
    if (w.length < n) {
      throw new IllegalArgumentException(w[0] + " needs " + (n - 1) + " argument(s)");
    }
  }

  private static String addr(ServerName s) {
    return s.getHostname() + ":" + s.getPort();
  }

  private static String servers(Admin admin) throws Exception {
    List<String> out = new ArrayList<>();
    for (ServerName s : admin.getRegionServers()) {
      out.add(addr(s));
    }
    return sorted(out);
  }

  private static String namespace(Admin admin, String name) throws Exception {
    NamespaceDescriptor ns;
    try {
      ns = admin.getNamespaceDescriptor(name);
    } catch (NamespaceNotFoundException e) {
      return "missing";
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : ns.getConfiguration().entrySet()) {
      out.add(esc(e.getKey()) + "=" + esc(e.getValue()));
    }
    return sorted(out);
  }

  /** The stored values of the table and of each family, with the typed settings' effective values. */
  private static String descriptor(TableDescriptor t) {
    Map<String, String> table = new TreeMap<>();
    t.getValues().forEach((k, v) -> table.put(Bytes.toString(k.copyBytes()), Bytes.toString(v.copyBytes())));
    table.put("REGION_REPLICATION", Integer.toString(t.getRegionReplication()));
    table.put("MAX_FILESIZE", Long.toString(t.getMaxFileSize()));
    table.put("MEMSTORE_FLUSHSIZE", Long.toString(t.getMemStoreFlushSize()));
    table.put("READONLY", Boolean.toString(t.isReadOnly()));
    table.put("DURABILITY", t.getDurability().name());
    table.put("COMPACTION_ENABLED", Boolean.toString(t.isCompactionEnabled()));
    table.put("NORMALIZATION_ENABLED", Boolean.toString(t.isNormalizationEnabled()));
    StringBuilder out = new StringBuilder("table");
    pairs(out, table);
    ColumnFamilyDescriptor[] families = t.getColumnFamilies();
    Arrays.sort(families, (a, b) -> Bytes.compareTo(a.getName(), b.getName()));
    for (ColumnFamilyDescriptor f : families) {
      Map<String, String> fam = new TreeMap<>();
      f.getValues().forEach((k, v) -> fam.put(Bytes.toString(k.copyBytes()), Bytes.toString(v.copyBytes())));
      f.getConfiguration().forEach(fam::put);
      fam.put("VERSIONS", Integer.toString(f.getMaxVersions()));
      fam.put("MIN_VERSIONS", Integer.toString(f.getMinVersions()));
      fam.put("TTL", Integer.toString(f.getTimeToLive()));
      fam.put("BLOOMFILTER", f.getBloomFilterType().name());
      fam.put("COMPRESSION", f.getCompressionType().name());
      fam.put("DATA_BLOCK_ENCODING", f.getDataBlockEncoding().name());
      fam.put("BLOCKSIZE", Integer.toString(f.getBlocksize()));
      fam.put("IN_MEMORY", Boolean.toString(f.isInMemory()));
      fam.put("BLOCKCACHE", Boolean.toString(f.isBlockCacheEnabled()));
      fam.put("REPLICATION_SCOPE", Integer.toString(f.getScope()));
      fam.put("DFS_REPLICATION", Short.toString(f.getDFSReplication()));
      fam.put("KEEP_DELETED_CELLS", f.getKeepDeletedCells().name());
      out.append(" family ").append(esc(f.getNameAsString()));
      pairs(out, fam);
    }
    return out.toString();
  }

  private static void pairs(StringBuilder out, Map<String, String> values) {
    for (Map.Entry<String, String> e : values.entrySet()) {
      out.append(' ').append(esc(e.getKey())).append('=').append(esc(e.getValue()));
    }
  }

  /** Every replica of every region of the table open on a live region server. */
  private static String regions(Admin admin, TableName table) throws Exception {
    List<String[]> open = new ArrayList<>();
    for (ServerName s : admin.getRegionServers()) {
      for (RegionInfo r : admin.getRegions(s)) {
        if (r.getTable().equals(table)) {
          open.add(new String[] {hex(r.getStartKey()), Integer.toString(r.getReplicaId()), addr(s)});
        }
      }
    }
    open.sort((a, b) -> a[0].equals(b[0]) ? Integer.compare(Integer.parseInt(a[1]), Integer.parseInt(b[1]))
        : compareHex(a[0], b[0]));
    List<String> out = new ArrayList<>();
    for (String[] r : open) {
      out.add(r[0] + "/" + r[1] + "@" + r[2]);
    }
    return String.join(" ", out);
  }

  private static int compareHex(String a, String b) {
    return Bytes.compareTo(unhex(a), unhex(b));
  }

  private static int storeFiles(Admin admin, TableName table, byte[] start) throws Exception {
    for (ServerName s : admin.getRegionServers()) {
      for (RegionInfo r : admin.getRegions(s)) {
        if (!r.getTable().equals(table) || r.getReplicaId() != 0 || !Arrays.equals(r.getStartKey(), start)) {
          continue;
        }
        for (RegionMetrics m : admin.getRegionMetrics(s, table)) {
          if (Arrays.equals(m.getRegionName(), r.getRegionName())) {
            return m.getStoreFileCount();
          }
        }
        throw new IllegalStateException("no metrics of region " + r.getEncodedName() + " on " + s);
      }
    }
    throw new IllegalStateException("no open region of " + table + " starts at " + hex(start));
  }

  private static String cluster(Admin admin) throws Exception {
    ClusterMetrics m = admin.getClusterMetrics();
    List<String> live = new ArrayList<>();
    for (ServerName s : m.getLiveServerMetrics().keySet()) {
      live.add(addr(s));
    }
    List<String> dead = new ArrayList<>();
    for (ServerName s : m.getDeadServerNames()) {
      dead.add(addr(s));
    }
    live.sort(null);
    dead.sort(null);
    return "version=" + esc(m.getHBaseVersion()) + " master=" + (m.getMasterName() == null ? "-" : addr(m.getMasterName()))
        + " live=" + list(live) + " dead=" + list(dead) + " rit=" + m.getRegionStatesInTransition().size()
        + " balancer=" + m.getBalancerOn();
  }

  private static String list(List<String> items) {
    return items.isEmpty() ? "-" : String.join(",", items);
  }

  private static String get(Connection connection, TableName name, byte[] row, byte[] fam, byte[] qual)
      throws Exception {
    try (Table table = connection.getTable(name)) {
      Result r = table.get(new Get(row).addColumn(fam, qual));
      byte[] value = r.getValue(fam, qual);
      return value == null ? "none" : hex(value);
    }
  }

  private static int rows(Connection connection, TableName name) throws Exception {
    int n = 0;
    try (Table table = connection.getTable(name);
        ResultScanner scanner = table.getScanner(new Scan().setFilter(new FirstKeyOnlyFilter()))) {
      for (Result r : scanner) {
        n++;
      }
    }
    return n;
  }

  private static String sorted(List<String> items) {
    items.sort(null);
    return String.join(" ", items);
  }

  /** Text with every byte outside [A-Za-z0-9_.:,/+-] written %XX (UTF-8). */
  private static String esc(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || ".:,/+-_".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append(String.format("%%%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static String hex(byte[] b) {
    if (b.length == 0) {
      return ".";
    }
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xff));
    }
    return s.toString();
  }

  private static byte[] unhex(String s) {
    if (s.equals(".")) {
      return new byte[0];
    }
    if (s.length() % 2 != 0) {
      throw new IllegalArgumentException("odd hex length: " + s);
    }
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }
}
