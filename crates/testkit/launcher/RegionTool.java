// Moves and splits regions of the test HBase on demand, for Basalt's tests of scans and
// writes while regions move (issue 14). Run by `hbase-local.sh regions --dir DIR` in
// Java's source-file mode with the run directory's conf and HBase's classpath.
//
// Reads one command per line on stdin and answers one line on stdout: "RT ok ..." or
// "RT err MESSAGE" (HBase's own log lines may be interleaved on stdout; answers are the
// lines starting with "RT "). Keys are hex. Commands:
//   servers                  the live region servers: "ok host,port,startcode ..."
//   bootstrap                HBase RPC addresses as the servers advertise them, the active
//                            master first: "ok MASTERHOST:PORT RSHOST:PORT ..."
//   regions TABLE            "ok ENCODED:STARTHEX:SERVER ..." in key order
//   move TABLE               moves every region of TABLE to another region server and
//                            waits until each is open there: "ok MOVED"
//   moveto TABLE SERVER      moves every region of TABLE to SERVER (host,port,startcode; an extra
//                            region server of the launcher) and waits until each is open there:
//                            "ok MOVED"
//   split TABLE KEYHEX       splits the region holding KEY at KEY and waits until a
//                            region starts at KEY: "ok REGIONS"
//   balancer on|off          switches the balancer: "ok PREVIOUS"
//   replicas TABLE N         sets TABLE's region replication to N and waits until every
//                            replica is open: "ok REPLICA:SERVER ..."
//   flush TABLE              flushes TABLE's memstores: "ok flushed"
//   close TABLE ROWHEX       closes the primary replica of the region holding ROW (its
//                            secondaries stay open): "ok ENCODED"
//   open TABLE ROWHEX        opens that primary again: "ok ENCODED"
//   throttle TABLE N UNIT    a request-number quota on TABLE: N requests per UNIT (sec, min,
//                            hour; needs hbase.quota.enabled): "ok throttled"
//   unthrottle TABLE         removes TABLE's throttle: "ok unthrottled"
//   quit                     exits
//
//   java -cp CONF:CLASSPATH RegionTool.java

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.RegionReplicaUtil;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

public class RegionTool {
  private static final long WAIT_MS = 60_000;

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
      System.out.println("RT ok ready");
      System.out.flush();
      String line;
      while ((line = in.readLine()) != null) {
        String[] words = line.trim().split("\\s+");
        if (words.length == 0 || words[0].isEmpty()) {
          continue;
        }
        if (words[0].equals("quit")) {
          break;
        }
        String answer;
        try {
          answer = "RT ok " + run(connection, admin, words);
        } catch (Exception e) {
          answer = "RT err " + e.toString().replace('\n', ' ');
        }
        System.out.println(answer);
        System.out.flush();
      }
    }
  }

  private static String run(Connection connection, Admin admin, String[] w) throws Exception {
    switch (w[0]) {
      case "servers":
        return join(servers(admin));
      case "bootstrap":
        return bootstrap(admin);
      case "regions":
        need(w, 2);
        return regions(connection, TableName.valueOf(w[1]));
      case "move":
        need(w, 2);
        return Integer.toString(moveAll(connection, admin, TableName.valueOf(w[1])));
      case "moveto":
        need(w, 3);
        return Integer.toString(moveAllTo(connection, admin, TableName.valueOf(w[1]), ServerName.valueOf(w[2])));
      case "split":
        need(w, 3);
        return Integer.toString(split(admin, TableName.valueOf(w[1]), unhex(w[2])));
      case "replicas":
        need(w, 3);
        return replicas(connection, admin, TableName.valueOf(w[1]), Integer.parseInt(w[2]));
      case "flush":
        need(w, 2);
        admin.flush(TableName.valueOf(w[1]));
        return "flushed";
      case "close":
        need(w, 3);
        return primary(connection, admin, TableName.valueOf(w[1]), unhex(w[2]), false);
      case "open":
        need(w, 3);
        return primary(connection, admin, TableName.valueOf(w[1]), unhex(w[2]), true);
      case "throttle":
        need(w, 4);
        admin.setQuota(QuotaSettingsFactory.throttleTable(TableName.valueOf(w[1]),
            ThrottleType.REQUEST_NUMBER, Long.parseLong(w[2]), timeUnit(w[3])));
        return "throttled";
      case "unthrottle":
        need(w, 2);
        admin.setQuota(QuotaSettingsFactory.unthrottleTable(TableName.valueOf(w[1])));
        return "unthrottled";
      case "balancer":
        need(w, 2);
        return Boolean.toString(admin.balancerSwitch(w[1].equals("on"), true));
      default:
        throw new IllegalArgumentException("unknown command " + w[0]);
    }
  }

  private static TimeUnit timeUnit(String unit) {
    switch (unit) {
      case "sec":
        return TimeUnit.SECONDS;
      case "min":
        return TimeUnit.MINUTES;
      case "hour":
        return TimeUnit.HOURS;
      default:
        throw new IllegalArgumentException("unit " + unit + ": use sec, min or hour");
    }
  }

  private static void need(String[] w, int n) {
    if (w.length < n) {
      throw new IllegalArgumentException(w[0] + " needs " + (n - 1) + " argument(s)");
    }
  }

  private static List<String> servers(Admin admin) throws Exception {
    List<String> names = new ArrayList<>();
    for (ServerName s : admin.getRegionServers()) {
      names.add(s.getServerName());
    }
    names.sort(null);
    return names;
  }

  private static String bootstrap(Admin admin) throws Exception {
    List<String> out = new ArrayList<>();
    ServerName master = admin.getMaster();
    out.add(master.getHostname() + ":" + master.getPort());
    List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
    servers.sort(null);
    for (ServerName s : servers) {
      out.add(s.getHostname() + ":" + s.getPort());
    }
    return join(out);
  }

  private static String regions(Connection connection, TableName table) throws Exception {
    List<String> out = new ArrayList<>();
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        out.add(loc.getRegion().getEncodedName() + ":" + hex(loc.getRegion().getStartKey()) + ":"
            + (loc.getServerName() == null ? "-" : loc.getServerName().getServerName()));
      }
    }
    return join(out);
  }

  /** Moves every region of the table to the next server after its own, then waits. */
  private static int moveAll(Connection connection, Admin admin, TableName table) throws Exception {
    List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
    servers.sort(null);
    if (servers.size() < 2) {
      throw new IllegalStateException("only " + servers.size() + " region server(s): nothing to move to");
    }
    int moved = 0;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        ServerName from = loc.getServerName();
        int at = Math.max(0, servers.indexOf(from));
        ServerName to = servers.get((at + 1) % servers.size());
        admin.move(loc.getRegion().getEncodedNameAsBytes(), to);
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (true) {
          HRegionLocation now = locator.getRegionLocation(loc.getRegion().getStartKey(), true);
          if (to.equals(now.getServerName())) {
            break;
          }
          if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("region " + loc.getRegion().getEncodedName() + " did not reach " + to);
          }
          Thread.sleep(100);
        }
        moved++;
      }
    }
    return moved;
  }

  /**
   * Sets the table's region replication to `n` (disabled while it changes), then waits until
   * every replica of every region is open; answers "replica:server" per replica.
   */
  private static String replicas(Connection connection, Admin admin, TableName table, int n)
      throws Exception {
    admin.disableTable(table);
    admin.modifyTable(
        TableDescriptorBuilder.newBuilder(admin.getDescriptor(table)).setRegionReplication(n).build());
    admin.enableTable(table);
    long deadline = System.currentTimeMillis() + WAIT_MS;
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      while (true) {
        List<String> out = new ArrayList<>();
        for (RegionInfo region : admin.getRegions(table)) {
          if (!RegionReplicaUtil.isDefaultReplica(region)) {
            continue;
          }
          for (HRegionLocation loc : locator.getRegionLocations(region.getStartKey(), true)) {
            if (loc != null && loc.getServerName() != null) {
              out.add(loc.getRegion().getReplicaId() + ":" + loc.getServerName().getServerName());
            }
          }
        }
        long primaries =
            admin.getRegions(table).stream().filter(RegionReplicaUtil::isDefaultReplica).count();
        if (out.size() >= n * primaries) {
          return join(out);
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("replicas of " + table + " not all open after 60 s: " + join(out));
        }
        Thread.sleep(200);
      }
    }
  }

  /** Closes (or opens again) the primary replica of the region holding `row`; its secondaries stay. */
  private static String primary(Connection connection, Admin admin, TableName table, byte[] row, boolean open)
      throws Exception {
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      RegionInfo region = locator.getRegionLocation(row, RegionInfo.DEFAULT_REPLICA_ID, true).getRegion();
      if (open) {
        admin.assign(region.getRegionName());
      } else {
        admin.unassign(region.getRegionName());
      }
      return region.getEncodedName();
    }
  }

  /**
   * Moves every region of the table that is elsewhere to `to`, and waits for each. The
   * moves run at the same time (one thread per region, up to eight): a move waits for its
   * region to close and open, mostly idle, and one after the other sixteen of them took
   * about twenty seconds. A server that joined seconds ago may not take regions yet (the
   * master then reopens the region where it was): the move is asked again until the
   * region is there.
   */
  private static int moveAllTo(Connection connection, Admin admin, TableName table, ServerName to) throws Exception {
    if (!admin.getRegionServers().contains(to)) {
      throw new IllegalArgumentException("no live region server " + to);
    }
    List<HRegionLocation> elsewhere = new ArrayList<>();
    try (RegionLocator locator = connection.getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        if (!to.equals(loc.getServerName())) {
          elsewhere.add(loc);
        }
      }
    }
    if (elsewhere.isEmpty()) {
      return 0;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, elsewhere.size()));
    try {
      List<Future<Void>> moves = new ArrayList<>();
      for (HRegionLocation loc : elsewhere) {
        moves.add(pool.submit(() -> {
          moveOneTo(connection, table, loc, to);
          return null;
        }));
      }
      for (Future<Void> move : moves) {
        try {
          move.get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return elsewhere.size();
  }

  /** Moves one region to `to` (with an Admin and a locator of its own) and waits until it is open there. */
  private static void moveOneTo(Connection connection, TableName table, HRegionLocation loc, ServerName to)
      throws Exception {
    try (Admin admin = connection.getAdmin(); RegionLocator locator = connection.getRegionLocator(table)) {
      long deadline = System.currentTimeMillis() + WAIT_MS;
      int asked = 0;
      while (true) {
        admin.move(loc.getRegion().getEncodedNameAsBytes(), to);
        asked++;
        long retry = System.currentTimeMillis() + 5_000;
        ServerName now = null;
        while (System.currentTimeMillis() < retry) {
          now = locator.getRegionLocation(loc.getRegion().getStartKey(), true).getServerName();
          if (to.equals(now)) {
            return;
          }
          Thread.sleep(100);
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("region " + loc.getRegion().getEncodedName() + " did not reach " + to
              + " (asked " + asked + " times; it is on " + now + ")");
        }
      }
    }
  }

  /** Splits at `key` and waits until a region of the table starts there. */
  private static int split(Admin admin, TableName table, byte[] key) throws Exception {
    admin.split(table, key);
    long deadline = System.currentTimeMillis() + WAIT_MS;
    while (System.currentTimeMillis() < deadline) {
      List<RegionInfo> regions = admin.getRegions(table);
      for (RegionInfo r : regions) {
        if (Arrays.equals(r.getStartKey(), key) && !r.isSplitParent() && !r.isOffline()) {
          return regions.size();
        }
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no region of " + table + " starts at " + hex(key) + " after 60 s");
  }

  private static String join(List<String> parts) {
    return String.join(" ", parts);
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x & 0xff));
    }
    return s.toString();
  }

  private static byte[] unhex(String s) {
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
