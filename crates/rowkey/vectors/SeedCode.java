// The seeds' own row-key code, kept as the seeds wrote it (only made callable: the
// constants became parameters). Seed 003 is /work/shared/seeds/003_*: getRagionNum,
// getSplitKeys and NumberUtils.format. Seed 002 is the HBase-book salting snippet
// `(byte) (Long.hashCode(timestamp) % <number of regionservers>)` with
// `Bytes.add(Bytes.toBytes(prefix), Bytes.toBytes(timestamp))`. Seed 004 states its salt
// only in prose, "(cell-phone number + year) % number of partitions" with `00_` prefixes;
// seed004RowKey is that sentence in Java, with seed 003's padding helper.
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;

public class SeedCode {
    /** Seed 003's ValueConstant.REGION_COUNT. */
    static int REGION_COUNT = 6;

    // ---- seed 003, as written
    static byte[][] getSplitKeys(int regionCount) {
        int splitKeyCount = regionCount - 1;
        int length = Integer.toString(regionCount - 2).length();

        byte[][] bs = new byte[splitKeyCount][];
        List<byte[]> bsList = new ArrayList<>();
        for (int i = 0; i < splitKeyCount; i++) {
            String key = format(i, length) + "|";
            bsList.add(Bytes.toBytes(key));
        }
        bsList.toArray(bs);
        return bs;
    }

    static String getRagionNum(String tel, String date) {
        String usercode = tel.substring(tel.length() - 4);
        String yearMonth = date.substring(0, 6);

        int userCodeHash = usercode.hashCode();
        int yearMonthHash = yearMonth.hashCode();

        int crc = Math.abs(userCodeHash ^ yearMonthHash);

        int regionNum = crc % REGION_COUNT;
        int length = Integer.toString(REGION_COUNT - 2).length();

        return format(regionNum, length);
    }

    public static String format(int num, int length) {
        StringBuffer stringBuffer = new StringBuffer();
        for (int i = 0; i < length; i++) {
            stringBuffer.append("0");
        }

        DecimalFormat df = new DecimalFormat(stringBuffer.toString());

        return df.format(num);
    }

    static String seed003RowKey(String call1, String calltime, int regions) {
        REGION_COUNT = regions;
        return getRagionNum(call1, calltime) + "_" + call1 + "_" + calltime;
    }

    // ---- seed 002, as written
    static byte[] seed002RowKey(long timestamp, int numberOfRegionservers) {
        byte prefix = (byte) (Long.hashCode(timestamp) % numberOfRegionservers);
        byte[] rowkey = Bytes.add(Bytes.toBytes(prefix), Bytes.toBytes(timestamp));
        return rowkey;
    }

    // ---- seed 004, its sentence in Java
    static String seed004RowKey(String phone, String calltime, int partitions) {
        long regionNum = (Long.parseLong(phone) + Long.parseLong(calltime.substring(0, 4))) % partitions;
        int length = Integer.toString(partitions - 1).length();
        return format((int) regionNum, length) + "_" + phone + "_" + calltime;
    }
}
