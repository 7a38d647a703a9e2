// Writes the protocol vectors with HBase 2.6.1's own classes: cell blocks from its
// KeyValue codecs, a call frame and reply frames written with its protobuf messages the
// way its client and server write them, a RegionMovedException's stack trace as a
// server formats it, RegionInfo values and region names as meta stores them, and the
// meta keys its region locator scans from. The Rust tests read them (tests/java_vectors.rs).
//   java -cp CLASSPATH GenVectors OUT_DIR

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.ArrayBackedTag;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.Tag;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.codec.Codec;
import org.apache.hadoop.hbase.codec.KeyValueCodec;
import org.apache.hadoop.hbase.codec.KeyValueCodecWithTags;
import org.apache.hadoop.hbase.exceptions.RegionMovedException;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos;
import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.util.StringUtils;

public class GenVectors {
  static final long TS = 1700000000000L;

  static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
      out.append(String.format("%02x", b & 0xff));
    }
    return out.toString();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static List<KeyValue> cells(boolean withTags) {
    List<Tag> tags = withTags
      ? Arrays.asList(new ArrayBackedTag((byte) 1, "acl"), new ArrayBackedTag((byte) 8, "ttl"))
      : new ArrayList<>();
    List<KeyValue> cells = new ArrayList<>();
    cells.add(new KeyValue(utf8("row1"), utf8("cf"), utf8("q1"), TS, KeyValue.Type.Put,
      utf8("value one"), tags));
    cells.add(new KeyValue(utf8("row1"), utf8("cf"), new byte[0], TS + 1, KeyValue.Type.Put,
      new byte[0], tags));
    cells.add(new KeyValue(new byte[] { 0, (byte) 0xff, ',' }, utf8("f"), utf8("q,2"), 0L,
      KeyValue.Type.DeleteColumn, new byte[0], new ArrayList<>()));
    cells.add(new KeyValue(utf8("row3"), utf8("cf"), utf8("q"), Long.MAX_VALUE,
      KeyValue.Type.DeleteFamily, new byte[300], tags));
    return cells;
  }

  static byte[] block(Codec codec, List<KeyValue> cells) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Codec.Encoder encoder = codec.getEncoder(out);
    for (KeyValue cell : cells) {
      encoder.write(cell);
    }
    encoder.flush();
    return out.toByteArray();
  }

  static void writeCells(Path dir, String name, Codec codec, boolean withTags) throws IOException {
    List<KeyValue> cells = cells(withTags);
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(dir.resolve(name)))) {
      for (KeyValue kv : cells) {
        byte[] tags = Arrays.copyOfRange(kv.getTagsArray(), kv.getTagsOffset(),
          kv.getTagsOffset() + kv.getTagsLength());
        out.println("cell\t" + hex(Arrays.copyOfRange(kv.getRowArray(), kv.getRowOffset(),
          kv.getRowOffset() + kv.getRowLength())) + "\t"
          + hex(Arrays.copyOfRange(kv.getFamilyArray(), kv.getFamilyOffset(),
            kv.getFamilyOffset() + kv.getFamilyLength()))
          + "\t"
          + hex(Arrays.copyOfRange(kv.getQualifierArray(), kv.getQualifierOffset(),
            kv.getQualifierOffset() + kv.getQualifierLength()))
          + "\t" + kv.getTimestamp() + "\t" + (kv.getTypeByte() & 0xff) + "\t"
          + hex(Arrays.copyOfRange(kv.getValueArray(), kv.getValueOffset(),
            kv.getValueOffset() + kv.getValueLength()))
          + "\t" + hex(tags));
      }
      out.println("block\t" + hex(block(codec, cells)));
    }
  }

  static void delimited(DataOutputStream out, Message message) throws IOException {
    message.writeDelimitedTo(out);
  }

  /** A frame as the client and server write it: 4-byte length, then the parts. */
  static byte[] frame(Message header, Message param, byte[] cellBlock) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    DataOutputStream data = new DataOutputStream(body);
    delimited(data, header);
    if (param != null) {
      delimited(data, param);
    }
    if (cellBlock != null) {
      data.write(cellBlock);
    }
    data.flush();
    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(framed);
    out.writeInt(body.size());
    body.writeTo(out);
    out.flush();
    return framed.toByteArray();
  }

  static void writeFrames(Path dir) throws IOException {
    RPCProtos.RequestHeader requestHeader = RPCProtos.RequestHeader.newBuilder().setCallId(7)
      .setMethodName("Get").setRequestParam(true).setPriority(200).setTimeout(5000).build();
    ClientProtos.GetRequest get = ClientProtos.GetRequest.newBuilder()
      .setRegion(HBaseProtos.RegionSpecifier.newBuilder()
        .setType(HBaseProtos.RegionSpecifier.RegionSpecifierType.REGION_NAME)
        .setValue(ByteString.copyFromUtf8("users,,1700000000000.0123456789abcdef0123456789abcdef.")))
      .setGet(ClientProtos.Get.newBuilder().setRow(ByteString.copyFromUtf8("row1"))
        .addColumn(ClientProtos.Column.newBuilder().setFamily(ByteString.copyFromUtf8("cf"))))
      .build();

    byte[] cellBlock = block(new KeyValueCodec(), cells(false));
    RPCProtos.ResponseHeader scanHeader = RPCProtos.ResponseHeader.newBuilder().setCallId(9)
      .setCellBlockMeta(RPCProtos.CellBlockMeta.newBuilder().setLength(cellBlock.length)).build();
    ClientProtos.ScanResponse scan = ClientProtos.ScanResponse.newBuilder()
      .addCellsPerResult(2).addCellsPerResult(1).addCellsPerResult(1).setScannerId(42)
      .setMoreResults(true).setMoreResultsInRegion(true).setTtl(60000).build();

    // As ServerCall.setExceptionResponse does: the class, stringifyException's text,
    // do_not_retry, and for a moved region its host and port.
    RegionMovedException moved = new RegionMovedException(
      ServerName.valueOf("rs2.example.com", 16020, TS + 1), 42L);
    RPCProtos.ResponseHeader movedHeader = RPCProtos.ResponseHeader.newBuilder().setCallId(10)
      .setException(RPCProtos.ExceptionResponse.newBuilder()
        .setExceptionClassName(moved.getClass().getName())
        .setStackTrace(StringUtils.stringifyException(moved))
        .setDoNotRetry(false).setHostname(moved.getHostname()).setPort(moved.getPort()))
      .build();

    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(dir.resolve("frames.tsv")))) {
      out.println("get_call\t" + hex(frame(requestHeader, get, null)));
      out.println("scan_reply\t" + hex(frame(scanHeader, scan, cellBlock)));
      out.println("region_moved_reply\t" + hex(frame(movedHeader, null, null)));
      out.println("region_moved_message\t" + moved.getMessage());
    }
  }

  static void writeMeta(Path dir) throws IOException {
    TableName users = TableName.valueOf("users");
    TableName inNamespace = TableName.valueOf("ns", "events");
    RegionInfo region = RegionInfoBuilder.newBuilder(inNamespace).setStartKey(utf8("m,1"))
      .setEndKey(utf8("t")).setRegionId(TS).build();
    RegionInfo replica = RegionInfoBuilder.newBuilder(region).setReplicaId(1).build();
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(dir.resolve("meta.tsv")))) {
      out.println("region_info_value\t" + hex(RegionInfo.toByteArray(region)));
      out.println("region_name\t" + hex(region.getRegionName()));
      out.println("encoded_name\t" + region.getEncodedName());
      out.println("replica_region_name\t" + hex(replica.getRegionName()));
      out.println("meta_key_for_row\t"
        + hex(RegionInfo.createRegionName(users, utf8("row1"), HConstants.NINES, false)));
      out.println("meta_key_for_row_in_namespace\t"
        + hex(RegionInfo.createRegionName(inNamespace, utf8("a,b"), HConstants.NINES, false)));
      out.println("meta_key_before_row\t"
        + hex(RegionInfo.createRegionName(users, utf8("row1"), HConstants.ZEROES, false)));
      out.println("meta_stop_key\t" + hex(RegionInfo.createRegionName(users,
        HConstants.EMPTY_START_ROW, "", false)));
    }
  }

  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args[0]);
    Files.createDirectories(dir);
    writeCells(dir, "cells-keyvalue.tsv", new KeyValueCodec(), false);
    writeCells(dir, "cells-keyvalue-with-tags.tsv", new KeyValueCodecWithTags(), true);
    writeFrames(dir);
    writeMeta(dir);
  }
}
