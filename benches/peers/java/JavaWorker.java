// The Java native client (hbase-client) for the peer bench (benches/peers/driver.py):
// BufferedMutator writes, ResultScanner scans, one scanner per salt merged with a
// PriorityQueue, gets from a thread pool on one shared Connection. Compiled by
// benches/run.sh with javac against the launcher's classpath; reads hbase-site.xml
// (the ZooKeeper address) from the classpath.
//
// usage: java -cp CONF:CLASSES:HBASE_CP JavaWorker SALTS   (commands on stdin)

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

public class JavaWorker {
    static final int DAYS = 100;
    static final byte[] FAMILY = {'d'};
    static final byte[] QUALIFIER = {'v'};
    static final int VALUE_BYTES = 200;
    static final int PAGE = 1000;
    static final byte[] LETTERS = "abcdefghijklmnopqrstuvwxyz".repeat(10).getBytes(StandardCharsets.US_ASCII);

    static int salts;
    static int saltWidth;
    static Connection connection;
    static ExecutorService pool;

    /** SplitMix64 of i (benches/src/keys.rs `seq`). */
    static long seq(long i) {
        long z = i + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static void decimal(byte[] out, int at, int width, long unsigned) {
        String digits = Long.toUnsignedString(unsigned);
        int pad = width - digits.length();
        for (int k = 0; k < pad; k++) out[at + k] = '0';
        for (int k = 0; k < digits.length(); k++) out[at + pad + k] = (byte) digits.charAt(k);
    }

    /** Row i's key: salt, day, seq in decimal (keys.rs `row_key`). */
    static byte[] rowKey(long i) {
        long s = seq(i);
        byte[] key = new byte[saltWidth + 2 + 20];
        decimal(key, 0, saltWidth, Long.remainderUnsigned(s, salts));
        decimal(key, saltWidth, 2, i % DAYS);
        decimal(key, saltWidth + 2, 20, s);
        return key;
    }

    static byte[] saltPrefix(int bucket, byte[] rest) {
        byte[] p = new byte[saltWidth + rest.length];
        decimal(p, 0, saltWidth, bucket);
        System.arraycopy(rest, 0, p, saltWidth, rest.length);
        return p;
    }

    static byte[] rowValue(long i) {
        int first = (int) ((i % 26) * 7 % 26);
        return Arrays.copyOfRange(LETTERS, first, first + VALUE_BYTES);
    }

    /** This process's CPU time (user + system, every thread) from /proc/self/stat. */
    static double cpuSeconds() throws Exception {
        String stat = new String(Files.readAllBytes(Paths.get("/proc/self/stat")), StandardCharsets.US_ASCII);
        String[] f = stat.substring(stat.lastIndexOf(')') + 1).trim().split("\\s+");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }

    static final class Outcome {
        List<byte[]> keys = new ArrayList<>();
        long[] latencies = new long[0];
        long written = -1;
    }

    static Outcome write(String table, long rows) throws Exception {
        try (BufferedMutator m = connection.getBufferedMutator(TableName.valueOf(table))) {
            for (long i = 0; i < rows; i++) {
                Put p = new Put(rowKey(i));
                p.addColumn(FAMILY, QUALIFIER, rowValue(i));
                m.mutate(p);
            }
        }
        Outcome o = new Outcome();
        o.written = rows; // the keys for the digest are made after the clock stops
        return o;
    }

    static Outcome scan(String table) throws Exception {
        Outcome o = new Outcome();
        try (Table t = connection.getTable(TableName.valueOf(table));
             ResultScanner rs = t.getScanner(new Scan().setCaching(PAGE))) {
            for (Result r : rs) o.keys.add(r.getRow());
        }
        return o;
    }

    static final class Head {
        final Result row;
        final ResultScanner from;
        Head(Result row, ResultScanner from) { this.row = row; this.from = from; }
    }

    /** One scanner per salt over salt + prefix, merged by the key after the salt. */
    static Outcome merge(String table, byte[] prefix) throws Exception {
        Outcome o = new Outcome();
        int w = saltWidth;
        PriorityQueue<Head> heap = new PriorityQueue<>(salts, (a, b) -> {
            byte[] x = a.row.getRow(), y = b.row.getRow();
            return Arrays.compareUnsigned(x, w, x.length, y, w, y.length);
        });
        List<ResultScanner> scanners = new ArrayList<>();
        try (Table t = connection.getTable(TableName.valueOf(table))) {
            for (int b = 0; b < salts; b++) {
                Scan s = new Scan().setCaching(PAGE);
                s.setStartStopRowForPrefixScan(saltPrefix(b, prefix));
                ResultScanner rs = t.getScanner(s);
                scanners.add(rs);
                Result r = rs.next();
                if (r != null) heap.add(new Head(r, rs));
            }
            while (!heap.isEmpty()) {
                Head h = heap.poll();
                o.keys.add(h.row.getRow());
                Result r = h.from.next();
                if (r != null) heap.add(new Head(r, h.from));
            }
        } finally {
            for (ResultScanner rs : scanners) rs.close();
        }
        return o;
    }

    static Outcome gets(String table, int tasks, String path) throws Exception {
        List<byte[]> wanted = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path))) {
            if (!line.isBlank()) wanted.add(rowKey(Long.parseLong(line.trim())));
        }
        if (pool == null) pool = Executors.newFixedThreadPool(tasks);
        byte[][] got = new byte[wanted.size()][];
        long[] lat = new long[wanted.size()];
        TableName name = TableName.valueOf(table);
        List<Future<Object>> futures = new ArrayList<>();
        for (int k = 0; k < tasks; k++) {
            final int first = k;
            futures.add(pool.submit(() -> {
                try (Table t = connection.getTable(name)) {
                    for (int i = first; i < wanted.size(); i += tasks) {
                        long t0 = System.nanoTime();
                        Result r = t.get(new Get(wanted.get(i)));
                        lat[i] = System.nanoTime() - t0;
                        if (r.isEmpty()) throw new IllegalStateException("row missing");
                        got[i] = r.getRow();
                    }
                }
                return null;
            }));
        }
        for (Future<Object> f : futures) f.get();
        Outcome o = new Outcome();
        o.keys.addAll(Arrays.asList(got));
        o.latencies = lat;
        return o;
    }

    static String json(Outcome o, double wall, double cpu) throws Exception {
        for (long i = 0; i < o.written; i++) o.keys.add(rowKey(i));
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (byte[] k : o.keys) { md5.update(k); md5.update((byte) '\n'); }
        StringBuilder hex = new StringBuilder();
        for (byte b : md5.digest()) hex.append(String.format("%02x", b));
        long[] lat = o.latencies.clone();
        Arrays.sort(lat);
        double p50 = lat.length == 0 ? 0 : lat[Math.min(lat.length * 50 / 100, lat.length - 1)] / 1e6;
        double p99 = lat.length == 0 ? 0 : lat[Math.min(lat.length * 99 / 100, lat.length - 1)] / 1e6;
        return String.format(java.util.Locale.ROOT,
            "{\"ok\":true,\"rows\":%d,\"wall_s\":%.6f,\"cpu_s\":%.3f,\"digest\":\"%s\",\"p50_ms\":%.4f,\"p99_ms\":%.4f}",
            o.keys.size(), wall, cpu, hex, p50, p99);
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        System.setOut(System.err); // the protocol owns stdout; logging goes to stderr
        salts = Integer.parseInt(args[0]);
        saltWidth = Integer.toString(Math.max(salts - 1, 1)).length();
        connection = ConnectionFactory.createConnection(HBaseConfiguration.create());
        out.println("{\"ok\":true,\"ready\":\"java\"}");
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            if (w[0].equals("quit")) break;
            String answer;
            try {
                double cpu0 = cpuSeconds();
                long t0 = System.nanoTime();
                Outcome o;
                switch (w[0]) {
                    case "write": o = write(w[1], Long.parseLong(w[2])); break;
                    case "scan": o = scan(w[1]); break;
                    case "merged": o = merge(w[1], new byte[0]); break;
                    case "prefix": o = merge(w[1], String.format("%02d", Integer.parseInt(w[2])).getBytes(StandardCharsets.US_ASCII)); break;
                    case "gets": o = gets(w[1], Integer.parseInt(w[2]), w[3]); break;
                    default: throw new IllegalArgumentException("unknown command " + w[0]);
                }
                double wall = (System.nanoTime() - t0) / 1e9, cpu = cpuSeconds() - cpu0;
                answer = json(o, wall, cpu);
            } catch (Exception e) {
                String why = (e.getClass().getSimpleName() + ": " + e.getMessage()).replace("\\", "/").replace("\"", "'").replace("\n", " ");
                answer = "{\"ok\":false,\"error\":\"" + why + "\"}";
            }
            out.println(answer);
            out.flush();
        }
        if (pool != null) pool.shutdownNow();
        connection.close();
        System.exit(0);
    }
}
