// Recomputes the compatibility vectors of KEYS.md on a JVM, from each system's published
// formula (re-expressed here, not copied). Run: javac GenVectors.java && java GenVectors
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

public class GenVectors {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }
    static byte[] cat(byte[]... parts) {
        int n = 0; for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n]; int o = 0;
        for (byte[] p : parts) { System.arraycopy(p, 0, out, o, p.length); o += p.length; }
        return out;
    }
    static byte[] ascii(String s) { return s.getBytes(StandardCharsets.UTF_8); }
    // Phoenix SaltingUtil: abs(hashCode(key) % buckets), hashCode = 31-hash from 1 over signed bytes
    static int phoenix(byte[] key, int buckets) { return Math.abs(Arrays.hashCode(key) % buckets); }
    // OpenTSDB RowKey.prefixKeyWithSalt: Arrays.hashCode(metric + tags) % buckets, negated if < 0
    static int opentsdb(byte[] metricAndTags, int buckets) {
        int m = Arrays.hashCode(metricAndTags) % buckets; if (m < 0) m = m * -1; return m;
    }
    // HBaseWD OneByteSimpleHash: (byte)(Math.abs(31-hash from 1) % mod), as a long
    static int hbasewdHash(byte[] key, int mod) {
        int h = 1; for (byte b : key) h = 31 * h + (int) b;
        long l = Math.abs(h); return (byte) (l % mod) & 0xff;
    }
    // Seed 003: abs(last4.hashCode() ^ yyyyMM.hashCode()) % regions
    static int seed003(String tel, String date, int regions) {
        String usercode = tel.substring(tel.length() - 4);
        String ym = date.substring(0, 6);
        return Math.abs(usercode.hashCode() ^ ym.hashCode()) % regions;
    }
    public static void main(String[] a) throws Exception {
        for (String s : new String[] {"", "hello", "5678", "202109", "202110", "202111", "\u6dd8\u5b9d", "host1"})
            System.out.println("java_string " + s + " " + s.hashCode());
        for (String h : new String[] {"", "ff", "68656c6c6f", "80007f"}) {
            byte[] b = new byte[h.length() / 2];
            for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
            System.out.println("java_bytes " + h + " " + Arrays.hashCode(b));
        }
        System.out.println("phoenix4 row1 " + phoenix(ascii("row1"), 4));
        System.out.println("phoenix16 user42 " + phoenix(ascii("user42"), 16));
        System.out.println("phoenix16 ff00 " + phoenix(new byte[] {(byte) 0xff, 0}, 16));
        byte[] metric = {0, 0, 1};
        byte[] tags = {0, 0, 1, 0, 0, 2};
        System.out.println("opentsdb20 " + opentsdb(cat(metric, tags), 20));
        byte[] metric2 = {(byte) 0x9a, 0x10, (byte) 0xff};
        byte[] tags2 = {(byte) 0x80, 0, 1, (byte) 0xfe, 0, 2};
        System.out.println("opentsdb20b " + opentsdb(cat(metric2, tags2), 20));
        System.out.println("hbasewd10 row1 " + hbasewdHash(ascii("row1"), 10));
        System.out.println("hbasewd10 ff00 " + hbasewdHash(new byte[] {(byte) 0xff, 0}, 10));
        // HBaseWD RowKeyDistributorByOneBytePrefix: byte counter, Math.abs(next++ % max)
        byte next = 0; byte max = 10; StringBuilder rr = new StringBuilder();
        for (int i = 0; i < 260; i++) { byte p = (byte) (Math.abs(next++ % max)); rr.append(String.format("%02x", p)); }
        System.out.println("hbasewd_rr10 " + rr);
        System.out.println("seed003 13812345678 20210915123045 6 " + seed003("13812345678", "20210915123045", 6));
        System.out.println("seed003 13812345678 20211003000000 6 " + seed003("13812345678", "20211003000000", 6));
        System.out.println("seed003 13812345678 20211130235959 6 " + seed003("13812345678", "20211130235959", 6));
        System.out.println("seed003 15900001111 20210101000000 12 " + seed003("15900001111", "20210101000000", 12));
        System.out.println("seed004 " + ((13812345678L + 2021L) % 6));
        MessageDigest md = MessageDigest.getInstance("MD5");
        System.out.println("md5hex4 user42 " + hex(md.digest(ascii("user42"))).substring(0, 4));
        System.out.println("java_string_min " + (Math.abs(Integer.MIN_VALUE) % 10));
    }
}
