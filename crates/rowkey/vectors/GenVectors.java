// Writes the compatibility vectors under vectors/generated/ by calling the real systems:
// Apache Phoenix 5.1.3 (PDataType encoders, SaltingUtil), OpenTSDB 2.4.1
// (RowKey.prefixKeyWithSalt), HBaseWD 0.1.0 (the distributors themselves), and the
// published Java of the call-record, HBase-book and phone-and-year salts (SeedCode.java, run
// as written). Run by regen.sh, which resolves the jars with Maven (pom.xml). Deterministic:
// fixed random seeds, no clock.
//
// Every file is tab-separated text, one case per line; byte strings are lower-case hex.
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import com.sematext.hbase.wd.RowKeyDistributorByHashPrefix;
import com.sematext.hbase.wd.RowKeyDistributorByOneBytePrefix;
import org.apache.phoenix.schema.SaltingUtil;
import org.apache.phoenix.schema.SortOrder;
import org.apache.phoenix.schema.types.PDataType;
import org.apache.phoenix.schema.types.PDouble;
import org.apache.phoenix.schema.types.PFloat;
import org.apache.phoenix.schema.types.PInteger;
import org.apache.phoenix.schema.types.PLong;
import org.apache.phoenix.schema.types.PSmallint;
import org.apache.phoenix.schema.types.PTinyint;
import org.apache.phoenix.schema.types.PVarchar;

public class GenVectors {
    static Path out;

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }

    static PrintWriter file(String name) throws IOException {
        return new PrintWriter(Files.newBufferedWriter(out.resolve(name), StandardCharsets.UTF_8));
    }

    static byte[] randomBytes(Random r, int maxLen) {
        byte[] b = new byte[r.nextInt(maxLen + 1)];
        r.nextBytes(b);
        return b;
    }

    /** 31-hash from 1 over signed bytes (Arrays.hashCode(byte[])) of a prefix. */
    static int bytesHash(byte[] b, int len) {
        int h = 1;
        for (int i = 0; i < len; i++) h = 31 * h + b[i];
        return h;
    }

    /**
     * A byte key whose Arrays.hashCode is exactly `target`: a random prefix, then 7 bytes
     * chosen as balanced base-31 digits (|digit| <= 15), which reach every int.
     */
    static byte[] keyWithHash(Random r, int prefixLen, int target) {
        byte[] k = new byte[prefixLen + 7];
        for (int i = 0; i < prefixLen; i++) k[i] = (byte) r.nextInt(256);
        int h = bytesHash(k, prefixLen);
        int pow = 1;
        for (int i = 0; i < 7; i++) pow *= 31;
        long d = (long) (target - h * pow); // wrapping int difference, as a signed value
        for (int i = prefixLen + 6; i >= prefixLen; i--) {
            long digit = Math.floorMod(d, 31L);
            if (digit > 15) digit -= 31;
            k[i] = (byte) digit;
            d = (d - digit) / 31;
        }
        if (bytesHash(k, k.length) != target) throw new IllegalStateException("hash construction");
        return k;
    }

    /** A string of `len` chars (each < 0xD800, no '_') whose String.hashCode is `target`. */
    static String stringWithHash(int len, int target) {
        long t = Integer.toUnsignedLong(target);
        char[] c = new char[len];
        for (int i = len - 1; i > 0; i--) {
            c[i] = (char) (t % 31);
            t /= 31;
        }
        c[0] = (char) t;
        String s = new String(c);
        if (s.hashCode() != target) throw new IllegalStateException("string hash construction");
        return s;
    }

    static final int[] EDGE_HASHES = {Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE};

    /** Keys for hash vectors: empty, high bytes, random, and keys with edge hashes. */
    static List<byte[]> hashKeys(Random r, int n) {
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        keys.add(new byte[] {(byte) 0xff, 0});
        byte[] high = new byte[1 + r.nextInt(12)];
        Arrays.fill(high, (byte) (0x80 + r.nextInt(128)));
        keys.add(high);
        for (int i = 0; i < 6; i++) keys.add(randomBytes(r, 24));
        keys.add(keyWithHash(r, r.nextInt(4), EDGE_HASHES[n % EDGE_HASHES.length]));
        keys.add(keyWithHash(r, r.nextInt(4), Integer.MIN_VALUE));
        keys.add(keyWithHash(r, 0, Integer.MIN_VALUE + n));
        return keys;
    }

    // ---------------------------------------------------------------- HBaseWD 0.1.0
    static void hbasewd() throws IOException {
        try (PrintWriter w = file("hbasewd_round_robin.tsv")) {
            for (int n = 1; n <= 127; n++) {
                RowKeyDistributorByOneBytePrefix d = new RowKeyDistributorByOneBytePrefix((byte) n);
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < 300; i++) s.append(String.format("%02x", d.getDistributedKey(new byte[] {7})[0] & 0xff));
                w.println(n + "\t" + s);
            }
        }
        Random r = new Random(1);
        try (PrintWriter w = file("hbasewd_hash.tsv")) {
            for (int n = 1; n <= 256; n++) {
                RowKeyDistributorByHashPrefix d =
                        new RowKeyDistributorByHashPrefix(new RowKeyDistributorByHashPrefix.OneByteSimpleHash(n));
                for (byte[] k : hashKeys(r, n)) w.println(n + "\t" + hex(k) + "\t" + hex(d.getDistributedKey(k)));
            }
        }
    }

    // ---------------------------------------------------------------- Phoenix 5.1.3
    static void phoenixSalt() throws IOException {
        Random r = new Random(2);
        try (PrintWriter w = file("phoenix_salt.tsv")) {
            for (int n = 1; n <= 256; n++)
                for (byte[] k : hashKeys(r, n)) w.println(n + "\t" + hex(k) + "\t" + SaltingUtil.getSaltingByte(k, 0, k.length, n));
        }
        try (PrintWriter w = file("phoenix_splits.tsv")) {
            for (int n = 1; n <= 256; n++) {
                StringBuilder s = new StringBuilder();
                for (byte[] k : SaltingUtil.getSalteByteSplitPoints(n)) s.append(s.length() == 0 ? "" : " ").append(hex(k));
                w.println(n + "\t" + s);
            }
        }
    }

    static double randomDouble(Random r, int i) {
        double[] edge = {0.0, -0.0, 1.0, -1.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, Double.MIN_NORMAL};
        if (i < edge.length) return edge[i];
        switch (i % 3) {
            case 0: return Double.longBitsToDouble(r.nextLong());
            case 1: return (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
            default: return r.nextInt(2000) - 1000;
        }
    }

    static float randomFloat(Random r, int i) {
        float[] edge = {0.0f, -0.0f, 1.0f, -1.0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.MIN_NORMAL};
        if (i < edge.length) return edge[i];
        switch (i % 3) {
            case 0: return Float.intBitsToFloat(r.nextInt());
            case 1: return (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(20) - 10));
            default: return r.nextInt(2000) - 1000;
        }
    }

    /** A random non-empty string without U+0000 (Phoenix's separator) and without surrogates. */
    static String randomText(Random r) {
        int len = 1 + r.nextInt(10);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < len; i++) {
            int kind = r.nextInt(10);
            if (kind < 6) s.append((char) ('a' + r.nextInt(26)));
            else if (kind < 8) s.append((char) (1 + r.nextInt(127)));
            else if (kind < 9) s.append((char) (0x80 + r.nextInt(0xD800 - 0x80)));
            else s.appendCodePoint(0x10000 + r.nextInt(0x10000));
        }
        return s.toString();
    }

    /** Typed value text for the vector files (same notation as KEYS.md). */
    static String typed(PDataType<?> t, Object v) {
        if (t == PDouble.INSTANCE) return "f64b:" + String.format("%016x", Double.doubleToRawLongBits((Double) v));
        if (t == PFloat.INSTANCE) return "f32b:" + String.format("%08x", Float.floatToRawIntBits((Float) v));
        if (t == PVarchar.INSTANCE) return "x:" + hex(((String) v).getBytes(StandardCharsets.UTF_8));
        return "i:" + v;
    }

    static Object randomValue(PDataType<?> t, Random r, int i) {
        if (t == PDouble.INSTANCE) return randomDouble(r, i);
        if (t == PFloat.INSTANCE) return randomFloat(r, i);
        if (t == PSmallint.INSTANCE) return (short) (i < 3 ? new int[] {Short.MIN_VALUE, -1, Short.MAX_VALUE}[i] : r.nextInt(65536) - 32768);
        if (t == PTinyint.INSTANCE) return (byte) (i - 128 < 128 ? i - 128 : r.nextInt(256) - 128);
        if (t == PInteger.INSTANCE) return i < 3 ? new int[] {Integer.MIN_VALUE, -1, Integer.MAX_VALUE}[i] : r.nextInt();
        if (t == PLong.INSTANCE) return i < 3 ? new long[] {Long.MIN_VALUE, -1, Long.MAX_VALUE}[i] : r.nextLong();
        return randomText(r);
    }

    static void phoenixTypes() throws IOException {
        Random r = new Random(3);
        Object[][] types = {{"DOUBLE", PDouble.INSTANCE, 1000}, {"FLOAT", PFloat.INSTANCE, 1000},
            {"SMALLINT", PSmallint.INSTANCE, 500}, {"TINYINT", PTinyint.INSTANCE, 256},
            {"INTEGER", PInteger.INSTANCE, 500}, {"BIGINT", PLong.INSTANCE, 500}, {"VARCHAR", PVarchar.INSTANCE, 400}};
        try (PrintWriter w = file("phoenix_types.tsv")) {
            for (Object[] t : types) {
                PDataType<?> type = (PDataType<?>) t[1];
                for (int i = 0; i < (Integer) t[2]; i++) {
                    Object v = randomValue(type, r, i);
                    for (SortOrder o : new SortOrder[] {SortOrder.ASC, SortOrder.DESC})
                        w.println(t[0] + "\t" + o + "\t" + typed(type, v) + "\t" + hex(type.toBytes(v, o)));
                }
            }
        }
    }

    /**
     * A whole Phoenix row key, composed as PTableImpl.newKey does: each column's
     * PDataType bytes; after a variable-length column the separator 0x00, or 0xFF for a
     * DESC non-null value (rowKeyOrderOptimizable); a trailing 0xFF after a DESC
     * variable-length last column; then the salt byte from SaltingUtil over the rest.
     */
    static byte[] phoenixKey(PDataType<?>[] types, SortOrder[] orders, Object[] values, Integer buckets) throws IOException {
        java.io.ByteArrayOutputStream os = new java.io.ByteArrayOutputStream();
        if (buckets != null) os.write(0);
        for (int i = 0; i < types.length; i++) {
            if (i > 0 && !types[i - 1].isFixedWidth()) os.write(orders[i - 1] == SortOrder.DESC ? 0xff : 0x00);
            os.write(types[i].toBytes(values[i], orders[i]));
        }
        int last = types.length - 1;
        if (!types[last].isFixedWidth() && orders[last] == SortOrder.DESC) os.write(0xff);
        byte[] key = os.toByteArray();
        if (buckets != null) key[0] = SaltingUtil.getSaltingByte(key, 1, key.length - 1, buckets);
        return key;
    }

    static void phoenixKeys() throws IOException {
        Random r = new Random(4);
        SortOrder A = SortOrder.ASC, D = SortOrder.DESC;
        Object[][] layouts = {
            {"p_host_ts_metric", 8, new PDataType<?>[] {PVarchar.INSTANCE, PLong.INSTANCE, PVarchar.INSTANCE}, new SortOrder[] {A, A, A}},
            {"p_host_ts_metric_desc", 8, new PDataType<?>[] {PVarchar.INSTANCE, PLong.INSTANCE, PVarchar.INSTANCE}, new SortOrder[] {D, D, D}},
            {"p_numbers", null, new PDataType<?>[] {PInteger.INSTANCE, PDouble.INSTANCE, PFloat.INSTANCE, PSmallint.INSTANCE, PTinyint.INSTANCE, PVarchar.INSTANCE},
                new SortOrder[] {A, D, A, D, A, D}},
            {"p_name_price", 256, new PDataType<?>[] {PVarchar.INSTANCE, PDouble.INSTANCE}, new SortOrder[] {D, A}},
        };
        try (PrintWriter w = file("phoenix_keys.tsv")) {
            for (Object[] l : layouts) {
                PDataType<?>[] types = (PDataType<?>[]) l[2];
                SortOrder[] orders = (SortOrder[]) l[3];
                for (int i = 0; i < 600; i++) {
                    Object[] vals = new Object[types.length];
                    StringBuilder s = new StringBuilder();
                    for (int c = 0; c < types.length; c++) {
                        vals[c] = randomValue(types[c], r, r.nextInt(4) == 0 ? r.nextInt(12) : 100);
                        s.append(c == 0 ? "" : " ; ").append(typed(types[c], vals[c]));
                    }
                    w.println(l[0] + "\t" + s + "\t" + hex(phoenixKey(types, orders, vals, (Integer) l[1])));
                }
            }
        }
    }

    // ---------------------------------------------------------------- OpenTSDB 2.4.1
    static void setConst(String name, int v) throws Exception {
        Method m = Class.forName("net.opentsdb.core.Const").getDeclaredMethod(name, int.class);
        m.setAccessible(true);
        m.invoke(null, v);
    }

    static void opentsdb() throws Exception {
        Random r = new Random(5);
        int[] bucketChoices = {1, 2, 3, 7, 10, 16, 20, 32, 100, 255, 256};
        try (PrintWriter w = file("opentsdb.tsv")) {
            for (int width = 1; width <= 8; width++) {
                for (int i = 0; i < 400; i++) {
                    int buckets = i % 4 == 0 ? 1 + r.nextInt(256) : bucketChoices[r.nextInt(bucketChoices.length)];
                    setConst("setSaltWidth", width);
                    setConst("setSaltBuckets", buckets);
                    byte[] metric = new byte[3];
                    if (i % 10 != 0) r.nextBytes(metric); // every tenth row: metric 0, an annotation row
                    int ts = r.nextInt();
                    byte[] tags = new byte[6 * (1 + r.nextInt(3))];
                    r.nextBytes(tags);
                    byte[] row = new byte[width + 3 + 4 + tags.length];
                    System.arraycopy(metric, 0, row, width, 3);
                    for (int b = 0; b < 4; b++) row[width + 3 + b] = (byte) (ts >>> (24 - 8 * b));
                    System.arraycopy(tags, 0, row, width + 7, tags.length);
                    net.opentsdb.core.RowKey.prefixKeyWithSalt(row);
                    w.println(width + "\t" + buckets + "\t" + hex(metric) + "\t" + Integer.toUnsignedString(ts) + "\t" + hex(tags) + "\t" + hex(row));
                }
            }
        }
    }

    // ---------------------------------------------------------------- published salts
    static String randomPhone(Random r) {
        StringBuilder s = new StringBuilder("1");
        for (int i = 0; i < 10; i++) s.append((char) ('0' + r.nextInt(10)));
        return s.toString();
    }

    static String randomCallTime(Random r) {
        return String.format("%04d%02d%02d%02d%02d%02d", 2000 + r.nextInt(40), 1 + r.nextInt(12), 1 + r.nextInt(28),
                r.nextInt(24), r.nextInt(60), r.nextInt(60));
    }

    static void publishedSalts() throws IOException {
        Random r = new Random(6);
        try (PrintWriter w = file("call_record.tsv")) {
            for (int n = 1; n <= 300; n++) {
                for (int i = 0; i < 20; i++) {
                    String tel = randomPhone(r), date = randomCallTime(r);
                    if (i == 0) {
                        // Text whose hashes XOR to Integer.MIN_VALUE: the original Math.abs stays negative.
                        date = stringWithHash(6, Integer.MIN_VALUE ^ tel.substring(7).hashCode()) + "12000000";
                    }
                    String key;
                    try {
                        key = hex(SeedCode.callRecordRowKey(tel, date, n).getBytes(StandardCharsets.UTF_8));
                    } catch (RuntimeException e) {
                        key = "ERR";
                    }
                    w.println(n + "\t" + hex(tel.getBytes(StandardCharsets.UTF_8)) + "\t" + hex(date.getBytes(StandardCharsets.UTF_8)) + "\t" + key);
                }
            }
        }
        try (PrintWriter w = file("call_record_splits.tsv")) {
            for (int n = 1; n <= 300; n++) {
                StringBuilder s = new StringBuilder();
                for (byte[] k : SeedCode.getSplitKeys(n)) s.append(s.length() == 0 ? "" : " ").append(hex(k));
                w.println(n + "\t" + s);
            }
        }
        try (PrintWriter w = file("hbase_book_timestamp.tsv")) {
            long[] edge = {0L, 1L, 0x80000000L, 0x7fffffffL, 0xffffffffL, Long.MAX_VALUE, 0x8000000000000000L >>> 1};
            for (int n = 1; n <= 256; n++) {
                for (int i = 0; i < 12; i++) {
                    long ts = i < 2 ? edge[(n + i) % edge.length] : 1_000_000_000_000L + (long) (r.nextDouble() * 1_000_000_000_000L);
                    w.println(n + "\t" + ts + "\t" + hex(SeedCode.hbaseBookTimestampRowKey(ts, n)));
                }
            }
        }
        try (PrintWriter w = file("phone_year.tsv")) {
            for (int n = 1; n <= 200; n++) {
                for (int i = 0; i < 10; i++) {
                    String tel = randomPhone(r), date = randomCallTime(r);
                    w.println(n + "\t" + tel + "\t" + date + "\t" + hex(SeedCode.phoneYearRowKey(tel, date, n).getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
    }

    // ---------------------------------------------------------------- Java hash forms
    static final String[] FORMS = {"abs_of_rem", "abs_then_rem", "mask_then_rem", "floor_mod", "byte_of_rem"};

    static int form(String f, int h, int n) {
        switch (f) {
            case "abs_of_rem": return Math.abs(h % n);
            case "abs_then_rem": return Math.abs(h) % n;
            case "mask_then_rem": return (h & 0x7fffffff) % n;
            case "floor_mod": return Math.floorMod(h, n);
            default: return (byte) (h % n);
        }
    }

    /** Byte strings that exercise Java's UTF-8 decoder: valid, truncated, overlong, surrogates. */
    static byte[] utf8Edge(Random r) {
        byte[][] pieces = {{(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xed, (byte) 0xbf, (byte) 0xbf},
            {(byte) 0xc0, (byte) 0x80}, {(byte) 0xc1, (byte) 0xbf}, {(byte) 0xc2}, {(byte) 0xe0, (byte) 0x80},
            {(byte) 0xe0, (byte) 0xa0}, {(byte) 0xe2, (byte) 0x82}, {(byte) 0xf0, (byte) 0x80, (byte) 0x80},
            {(byte) 0xf0, (byte) 0x90, (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
            {(byte) 0xf5}, {(byte) 0xff}, {(byte) 0x80}, {(byte) 0xbf}, {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80},
            {(byte) 0xe6, (byte) 0xb7, (byte) 0x98}, {(byte) 0xc3, (byte) 0xa9}, {'a'}, {'0'}, {(byte) 0xf8, (byte) 0x88}};
        java.io.ByteArrayOutputStream os = new java.io.ByteArrayOutputStream();
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            if (r.nextInt(3) == 0) os.write(r.nextInt(256));
            else os.writeBytes(pieces[r.nextInt(pieces.length)]);
        }
        return os.toByteArray();
    }

    static void javaHashes() throws IOException {
        Random r = new Random(7);
        try (PrintWriter w = file("java_string.tsv")) {
            for (int i = 0; i < 3000; i++) {
                byte[] b = i % 3 == 0 ? randomBytes(r, 12) : utf8Edge(r);
                w.println(hex(b) + "\t" + new String(b, StandardCharsets.UTF_8).hashCode());
            }
        }
        try (PrintWriter w = file("java_hash.tsv")) {
            for (String f : FORMS) {
                for (int i = 0; i < 1000; i++) {
                    int n = i < 256 ? i + 1 : 1 + r.nextInt(r.nextBoolean() ? 256 : 100000);
                    String fn = new String[] {"bytes", "string", "long"}[i % 3];
                    byte[] input;
                    int h;
                    if (fn.equals("bytes")) {
                        input = i % 7 == 0 ? keyWithHash(r, r.nextInt(3), EDGE_HASHES[i % EDGE_HASHES.length]) : randomBytes(r, 16);
                        h = Arrays.hashCode(input);
                    } else if (fn.equals("string")) {
                        String s = i % 7 == 1 ? stringWithHash(7, Integer.MIN_VALUE) : new String(utf8Edge(r), StandardCharsets.UTF_8);
                        input = i % 7 == 1 ? s.getBytes(StandardCharsets.UTF_8) : utf8Edge(r);
                        if (i % 7 != 1) s = new String(input, StandardCharsets.UTF_8);
                        h = s.hashCode();
                    } else {
                        long v = i % 5 == 0 ? new long[] {0x80000000L, Long.MIN_VALUE, -1L, Long.MAX_VALUE, 0x7fffffff80000000L}[i % 25 / 5] : r.nextLong() >> r.nextInt(40);
                        input = Long.toString(v).getBytes(StandardCharsets.UTF_8);
                        h = Long.hashCode(v);
                    }
                    w.println(fn + "\t" + f + "\t" + n + "\t" + hex(input) + "\t" + form(f, h, n));
                }
            }
        }
    }

    /** The call-record salt with phones holding characters outside the BMP (two UTF-16 units each) and phones
     *  shorter than four units, where the original substring(length - 4) throws. */
    static void callRecordUtf16() throws IOException {
        String[] extra = {"\uD83D\uDCDE", "\uD840\uDC00", "\uD835\uDFD9", "\u00E9", "\u4E2D"};
        String[] shortPhones = {"", "1", "12", "123", "\uD83D\uDCDE1", "\uD83D\uDCDE12"};
        Random r = new Random(21);
        try (PrintWriter w = file("call_record_utf16.tsv")) {
            for (int i = 0; i < 120; i++) {
                String digits = randomPhone(r);
                String c = extra[i % extra.length];
                int at = digits.length() - (i % 6);
                String tel = i < 114 ? digits.substring(0, at) + c + digits.substring(at) : shortPhones[i - 114];
                String date = randomCallTime(r);
                int n = 2 + (i % 8);
                String key;
                try {
                    key = hex(SeedCode.callRecordRowKey(tel, date, n).getBytes(StandardCharsets.UTF_8));
                } catch (RuntimeException e) {
                    key = "ERR";
                }
                w.println(n + "\t" + hex(tel.getBytes(StandardCharsets.UTF_8)) + "\t" + hex(date.getBytes(StandardCharsets.UTF_8)) + "\t" + key);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        out = Paths.get(args.length > 0 ? args[0] : "generated");
        Files.createDirectories(out);
        hbasewd();
        phoenixSalt();
        phoenixTypes();
        phoenixKeys();
        opentsdb();
        publishedSalts();
        callRecordUtf16();
        javaHashes();
    }
}
