// The published row-key code of three salt designs, kept as written (only made callable:
// the constants became parameters). The call-record salt (phone number + call time) is a
// blog post's getRagionNum, getSplitKeys and NumberUtils.format. The HBase book's
// timestamp salt is its salting snippet
// `(byte) (Long.hashCode(timestamp) % <number of regionservers>)` with
// `Bytes.add(Bytes.toBytes(prefix), Bytes.toBytes(timestamp))`. The phone-and-year salt is
// stated only in prose, "(cell-phone number + year) % number of partitions" with `00_`
// prefixes; phoneYearRowKey is that sentence in Java, with the call-record padding helper.
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.util.Bytes;

public class SeedCode {
    /** The call-record code's ValueConstant.REGION_COUNT. */
    static int REGION_COUNT = 6;

    // ---- the call-record salt, as written
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

    static String callRecordRowKey(String call1, String calltime, int regions) {
        REGION_COUNT = regions;
        return getRagionNum(call1, calltime) + "_" + call1 + "_" + calltime;
    }

    // ---- the HBase book's timestamp salt, as written
    static byte[] hbaseBookTimestampRowKey(long timestamp, int numberOfRegionservers) {
        byte prefix = (byte) (Long.hashCode(timestamp) % numberOfRegionservers);
        byte[] rowkey = Bytes.add(Bytes.toBytes(prefix), Bytes.toBytes(timestamp));
        return rowkey;
    }

    // ---- the phone-and-year salt, its sentence in Java
    static String phoneYearRowKey(String phone, String calltime, int partitions) {
        long regionNum = (Long.parseLong(phone) + Long.parseLong(calltime.substring(0, 4))) % partitions;
        int length = Integer.toString(partitions - 1).length();
        return format((int) regionNum, length) + "_" + phone + "_" + calltime;
    }
}
