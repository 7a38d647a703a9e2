import org.apache.hadoop.hbase.filter.*;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import java.util.*;

public class FilterProtobufGolden {
  static void p(String label, Filter f) throws Exception {
    byte[] b = ProtobufUtil.toFilter(f).toByteArray();
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x));
    System.out.println(label + " " + sb);
  }
  public static void main(String[] a) throws Exception {
    ParseFilter pf = new ParseFilter();
    String[] texts = {
      "PrefixFilter('ab')",
      "KeyOnlyFilter(true)",
      "FirstKeyOnlyFilter()",
      "PageFilter(300)",
      "ColumnPaginationFilter(2, 1)",
      "MultipleColumnPrefixFilter('b', 'a')",
      "TimestampsFilter(5, 1)",
      "ColumnRangeFilter('a', true, '', false)",
      "RowFilter(<=, 'binary:k')",
      "ValueFilter(=, 'regexstringnocase:x.')",
      "QualifierFilter(!=, 'substring:AbC')",
      "FamilyFilter(>, 'binaryprefix:f')",
      "SingleColumnValueFilter('f', 'q', =, 'regexstring:v', true, false)",
      "SingleColumnValueExcludeFilter('f', 'q', =, 'binary:1')",
      "DependentColumnFilter('f', 'q')",
      "DependentColumnFilter('f', 'q', true, <, 'binary:z')",
      "ColumnValueFilter('f', 'q', =, 'binary:v')",
      "ColumnCountGetFilter(-0)",
      "InclusiveStopFilter('z')",
      "SKIP PrefixFilter('a') AND WHILE KeyOnlyFilter()",
      "PrefixFilter('a') OR KeyOnlyFilter()",
    };
    for (String t : texts) p(t.replace(' ', '_'), pf.parseFilterString(t));
    p("long", new ValueFilter(CompareOperator.GREATER, new LongComparator(-2)));
    p("bit", new ValueFilter(CompareOperator.EQUAL, new BitComparator(new byte[]{2}, BitComparator.BitwiseOp.XOR)));
    p("null", new ValueFilter(CompareOperator.EQUAL, new NullComparator()));
    p("component", new ValueFilter(CompareOperator.EQUAL, new BinaryComponentComparator(new byte[]{7}, 3)));
    p("pagefrom", new ColumnPaginationFilter(2, Bytes.toBytes("q2")));
    p("fuzzy", new FuzzyRowFilter(Arrays.asList(new Pair<>(Bytes.toBytes("r01"), new byte[]{0, 1, 0}))));
    p("ranges", new MultiRowRangeFilter(Arrays.asList(new MultiRowRangeFilter.RowRange("a", true, "c", false))));
    p("random", new RandomRowFilter(0.25f));
  }
}
