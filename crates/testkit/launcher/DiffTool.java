// Runs writes and reads through HBase's own Java client for Basalt's differential test
// (tests/hbase/differential/): the same seeded operations go through Basalt and through
// this tool, and every answer is compared byte for byte. Run by
// `hbase-local.sh regions --dir DIR --tool DiffTool` in Java's source-file mode with the
// run directory's conf and HBase's classpath; it reaches HBase through ZooKeeper and the
// master like any Java application (not through the Thrift gateway).
//
// One command per line on stdin, one answer line per command on stdout: "DT ok BODY" or
// "DT err MESSAGE" (HBase's log lines may be interleaved; answers start with "DT ").
// Tokens are separated by one space; byte strings are lower-case hex, "." for empty;
// an optional number is "-" when absent. The Rust side (differential/java.rs) writes
// the grammar below; this tool only builds the Java objects it names.
//
//   table NAME                     later commands use table NAME       -> ok
//   w WRITE                        apply a write; answers below
//   r READ                         run a read
//   quit
//
//   WRITE := put PUT | putmany K PUT*K | del DEL | delmany K DEL*K
//          | inc ROW N (FAM QUAL AMOUNT)*N | app ROW N (FAM QUAL VAL)*N
//          | mut ROW N MUT*N | cam ROW FAM QUAL OP VAL|- ACTION
//   PUT := ROW TS|- N (FAM QUAL VAL TS|-)*N
//   DEL := ROW TS|- N (KIND FAM QUAL TS|-)*N   KIND: cv addColumn, ca addColumns,
//          f addFamily, fv addFamilyVersion (QUAL "." for the family kinds)
//   MUT := p PUT | d DEL          ACTION := p PUT | d DEL | m N MUT*N
//   OP  := lt le eq ne ge gt
//   READ := get GET | gets K GET*K | exists GET | existsmany K GET*K | scan SCAN
//          | xscan RAW PARTIAL MAXRESULTSIZE|- SCAN   (setRaw, setAllowPartialResults: 0/1)
//   GET := ROW TS|- OPTS
//   SCAN := START INCL STOP INCL REV LIMIT|- CACHING|- BATCH|- PREFIX|- TS|- OPTS
//          (START/STOP exactly as given to withStartRow/withStopRow; INCL, REV: 0/1)
//   OPTS := N (FAM QUAL|*)*N MAXVERSIONS|- MIN|- MAX|- M (FAM MIN MAX)*M ONDEMAND|-
//           PERFAMILYLIMIT|- PERFAMILYOFFSET|- FILTER|-
//   FILTER := and K FILTER*K | or K FILTER*K | skip FILTER | while FILTER
//          | prefix HEX | colprefix HEX | mcp K HEX*K | incstop HEX | page N
//          | rowf OP CMP | valf OP CMP | qualf OP CMP | famf OP CMP
//          | keyonly | firstkey | ts K N*K | colrange HEX|- 0/1 HEX|- 0/1 | colcount N
//          | scv FAM QUAL OP CMP 0/1 0/1 | scve FAM QUAL OP CMP 0/1 0/1
//          | colpage LIMIT OFFSET | colpagek LIMIT HEX | dep FAM QUAL 0/1 OP|- CMP|-
//          | colval FAM QUAL OP CMP | keyonlylen | fuzzy K (KEY MASK)*K
//          | mrr K (START 0/1 STOP 0/1)*K | text HEX (filter language, ParseFilter)
//   CMP := bin HEX | binp HEX | regex HEX | regexi HEX | sub HEX | long N
//          | bit and|or|xor HEX | null | bincomp OFFSET HEX
//
//   A line the tool cannot read answers "DT bad MESSAGE" (a bug of the test).
//   Answers: "done", "bool true|false", "bools K b*K",
//            "rows N (ROW C (FAM QUAL TS VAL TYPE)*C)*N" (an empty get result: ROW ".", C 0;
//            TYPE: the cell's type byte, 4 for a value, delete markers in raw scans).
//
//   java -cp CONF:CLASSPATH DiffTool.java

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Query;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.BitComparator;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.NullComparator;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.ParseFilter;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Pair;

public class DiffTool {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    // A refused request should fail in seconds, not after the default retries.
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.client.operation.timeout", 30_000);
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.out.println("DT ok ready");
      System.out.flush();
      Table table = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          continue;
        }
        Tokens t = new Tokens(line);
        String command = t.next();
        if (command.equals("quit")) {
          break;
        }
        String answer;
        try {
          switch (command) {
            case "table":
              if (table != null) {
                table.close();
              }
              table = connection.getTable(TableName.valueOf(t.next()));
              answer = "done";
              break;
            case "w":
              answer = write(need(table), t);
              waitForNextMillisecond();
              break;
            case "r":
              answer = read(need(table), t);
              break;
            default:
              throw new BadCommand("unknown command " + command);
          }
          t.end();
          answer = "DT ok " + answer;
        } catch (BadCommand e) {
          answer = "DT bad " + e.getMessage().replace('\n', ' ').replace('\r', ' ');
        } catch (Exception e) {
          answer = "DT err " + e.toString().replace('\n', ' ').replace('\r', ' ');
        }
        System.out.println(answer);
        System.out.flush();
      }
      if (table != null) {
        table.close();
      }
    }
  }

  private static Table need(Table table) {
    if (table == null) {
      throw new IllegalStateException("no table chosen (send: table NAME)");
    }
    return table;
  }

  /**
   * Every write gets its own server millisecond: the next one starts after the clock has
   * moved past this one's end, so server-assigned timestamps keep the order of the writes
   * (the Rust side does the same for Basalt's writes).
   */
  private static void waitForNextMillisecond() {
    long done = System.currentTimeMillis();
    while (System.currentTimeMillis() <= done) {
      Thread.onSpinWait();
    }
  }

  // ---- writes ----

  private static String write(Table table, Tokens t) throws Exception {
    String kind = t.next();
    switch (kind) {
      case "put":
        table.put(put(t));
        return "done";
      case "putmany": {
        int n = t.count();
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          puts.add(put(t));
        }
        table.put(puts);
        return "done";
      }
      case "del":
        table.delete(delete(t));
        return "done";
      case "delmany": {
        int n = t.count();
        List<Delete> deletes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          deletes.add(delete(t));
        }
        table.delete(deletes);
        return "done";
      }
      case "inc": {
        Increment inc = new Increment(t.bytes());
        int n = t.count();
        for (int i = 0; i < n; i++) {
          inc.addColumn(t.bytes(), t.bytes(), t.num());
        }
        return rows(new Result[] {table.increment(inc)});
      }
      case "app": {
        Append app = new Append(t.bytes());
        int n = t.count();
        for (int i = 0; i < n; i++) {
          app.addColumn(t.bytes(), t.bytes(), t.bytes());
        }
        return rows(new Result[] {table.append(app)});
      }
      case "mut":
        table.mutateRow(mutations(t.bytes(), t));
        return "done";
      case "cam": {
        byte[] row = t.bytes();
        byte[] family = t.bytes();
        byte[] qualifier = t.bytes();
        CompareOperator op = op(t.next());
        byte[] value = t.optBytes();
        CheckAndMutate.Builder b = CheckAndMutate.newBuilder(row).ifMatches(family, qualifier, op, value);
        String action = t.next();
        CheckAndMutate cam;
        switch (action) {
          case "p":
            cam = b.build(put(t));
            break;
          case "d":
            cam = b.build(delete(t));
            break;
          case "m":
            cam = b.build(mutations(row, t));
            break;
          default:
            throw new BadCommand("unknown check-and-mutate action " + action);
        }
        return "bool " + table.checkAndMutate(cam).isSuccess();
      }
      case "noop":
      case "mutr":
      case "camx":
      case "batch":
        return mutationApi(table, kind, t);
      default:
        throw new BadCommand("unknown write " + kind);
    }
  }

  // ---- issue 25's mutation API ----
  //
  //   WRITE += noop | mutr ROW N MUT*N
  //          | camx ROW MIN|- MAX|- (col FAM QUAL OP VAL|- | filt FILTER) (MUT | m N MUT*N)
  //          | batch N (g GET | MUT)*N
  //   MUT += i INC | a APP       INC := ROW N (FAM QUAL AMOUNT)*N   APP := ROW N (FAM QUAL VAL)*N
  //   Answers += "each K PART*K", PART := done | bool B | rows 1 ... | error HEX

  private static String mutationApi(Table table, String kind, Tokens t) throws Exception {
    switch (kind) {
      case "noop":
        // A write Basalt refuses on the gateway: nothing is applied on this side either.
        return "done";
      case "mutr":
        return rows(new Result[] {nonNull(table.mutateRow(mutations(t.bytes(), t)))});
      case "camx": {
        byte[] row = t.bytes();
        Long min = t.optNum();
        Long max = t.optNum();
        CheckAndMutate.Builder b = CheckAndMutate.newBuilder(row);
        String cond = t.next();
        switch (cond) {
          case "col": {
            byte[] family = t.bytes();
            byte[] qualifier = t.bytes();
            CompareOperator op = op(t.next());
            b = b.ifMatches(family, qualifier, op, t.optBytes());
            break;
          }
          case "filt":
            b = b.ifMatches(filter(t));
            break;
          default:
            throw new BadCommand("unknown condition " + cond);
        }
        if (min != null) {
          b = b.timeRange(TimeRange.between(min, max == null ? Long.MAX_VALUE : max));
        }
        String action = t.next();
        CheckAndMutate cam;
        switch (action) {
          case "m":
            cam = b.build(mutations(row, t));
            break;
          case "p":
            cam = b.build(put(t));
            break;
          case "d":
            cam = b.build(delete(t));
            break;
          case "i":
            cam = b.build(increment(t));
            break;
          case "a":
            cam = b.build(append(t));
            break;
          default:
            throw new BadCommand("unknown check-and-mutate action " + action);
        }
        CheckAndMutateResult result = table.checkAndMutate(cam);
        return "each 2 bool " + result.isSuccess() + " " + rows(new Result[] {nonNull(result.getResult())});
      }
      case "batch": {
        int n = t.count();
        List<org.apache.hadoop.hbase.client.Row> actions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          String action = t.next();
          switch (action) {
            case "g":
              actions.add(get(t));
              break;
            case "p":
              actions.add(put(t));
              break;
            case "d":
              actions.add(delete(t));
              break;
            case "i":
              actions.add(increment(t));
              break;
            case "a":
              actions.add(append(t));
              break;
            default:
              throw new BadCommand("unknown batch action " + action);
          }
        }
        Object[] results = new Object[n];
        try {
          table.batch(actions, results);
        } catch (Exception e) {
          // Each action's own outcome is in `results`.
        }
        StringBuilder s = new StringBuilder("each ").append(n);
        for (Object r : results) {
          if (r instanceof Result) {
            s.append(' ').append(rows(new Result[] {(Result) r}));
          } else {
            s.append(" error ").append(hex(String.valueOf(r).getBytes(StandardCharsets.UTF_8)));
          }
        }
        return s.toString();
      }
      default:
        throw new BadCommand("unknown write " + kind);
    }
  }

  private static Result nonNull(Result r) {
    return r == null ? Result.EMPTY_RESULT : r;
  }

  private static Increment increment(Tokens t) {
    Increment inc = new Increment(t.bytes());
    int n = t.count();
    for (int i = 0; i < n; i++) {
      inc.addColumn(t.bytes(), t.bytes(), t.num());
    }
    return inc;
  }

  private static Append append(Tokens t) {
    Append app = new Append(t.bytes());
    int n = t.count();
    for (int i = 0; i < n; i++) {
      app.addColumn(t.bytes(), t.bytes(), t.bytes());
    }
    return app;
  }

  private static RowMutations mutations(byte[] row, Tokens t) throws Exception {
    int n = t.count();
    RowMutations rm = new RowMutations(row);
    for (int i = 0; i < n; i++) {
      String kind = t.next();
      Mutation m;
      switch (kind) {
        case "p":
          m = put(t);
          break;
        case "d":
          m = delete(t);
          break;
        case "i":
          m = increment(t);
          break;
        case "a":
          m = append(t);
          break;
        default:
          throw new BadCommand("unknown mutation " + kind);
      }
      rm.add(m);
    }
    return rm;
  }

  private static Put put(Tokens t) {
    byte[] row = t.bytes();
    Long ts = t.optNum();
    Put p = ts == null ? new Put(row) : new Put(row, ts);
    int n = t.count();
    for (int i = 0; i < n; i++) {
      byte[] f = t.bytes();
      byte[] q = t.bytes();
      byte[] v = t.bytes();
      Long cellTs = t.optNum();
      if (cellTs == null) {
        p.addColumn(f, q, v);
      } else {
        p.addColumn(f, q, cellTs, v);
      }
    }
    return p;
  }

  private static Delete delete(Tokens t) {
    byte[] row = t.bytes();
    Long ts = t.optNum();
    Delete d = ts == null ? new Delete(row) : new Delete(row, ts);
    int n = t.count();
    for (int i = 0; i < n; i++) {
      String kind = t.next();
      byte[] f = t.bytes();
      byte[] q = t.bytes();
      Long at = t.optNum();
      switch (kind) {
        case "cv":
          d = at == null ? d.addColumn(f, q) : d.addColumn(f, q, at);
          break;
        case "ca":
          d = at == null ? d.addColumns(f, q) : d.addColumns(f, q, at);
          break;
        case "f":
          d = at == null ? d.addFamily(f) : d.addFamily(f, at);
          break;
        case "fv":
          if (at == null) {
            throw new BadCommand("fv needs a timestamp");
          }
          d = d.addFamilyVersion(f, at);
          break;
        default:
          throw new BadCommand("unknown delete kind " + kind);
      }
    }
    return d;
  }

  // ---- reads ----

  private static String read(Table table, Tokens t) throws Exception {
    String kind = t.next();
    switch (kind) {
      case "get":
        return rows(new Result[] {table.get(get(t))});
      case "gets":
        return rows(table.get(gets(t)));
      case "exists":
        return "bool " + table.exists(get(t));
      case "existsmany": {
        boolean[] answers = table.exists(gets(t));
        StringBuilder s = new StringBuilder("bools ").append(answers.length);
        for (boolean b : answers) {
          s.append(' ').append(b);
        }
        return s.toString();
      }
      case "scan": {
        List<Result> results = new ArrayList<>();
        try (ResultScanner scanner = table.getScanner(scan(t))) {
          for (Result r : scanner) {
            results.add(r);
          }
        }
        return rows(results.toArray(new Result[0]));
      }
      case "xscan": {
        // The scan-extras group, then a scan.
        boolean raw = t.flag();
        boolean allowPartial = t.flag();
        Long maxResultSize = t.optNum();
        Scan s = scan(t);
        s.setRaw(raw);
        s.setAllowPartialResults(allowPartial);
        if (maxResultSize != null) {
          s.setMaxResultSize(maxResultSize);
        }
        List<Result> results = new ArrayList<>();
        try (ResultScanner scanner = table.getScanner(s)) {
          for (Result r : scanner) {
            results.add(r);
          }
        }
        return rows(results.toArray(new Result[0]));
      }
      default:
        throw new BadCommand("unknown read " + kind);
    }
  }

  private static List<Get> gets(Tokens t) throws Exception {
    int n = t.count();
    List<Get> gets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      gets.add(get(t));
    }
    return gets;
  }

  private static Get get(Tokens t) throws Exception {
    Get g = new Get(t.bytes());
    Long ts = t.optNum();
    if (ts != null) {
      g.setTimestamp(ts);
    }
    int n = t.count();
    for (int i = 0; i < n; i++) {
      byte[] f = t.bytes();
      byte[] q = t.familyOrColumn();
      if (q == null) {
        g.addFamily(f);
      } else {
        g.addColumn(f, q);
      }
    }
    Long versions = t.optNum();
    if (versions != null) {
      g.readVersions(versions.intValue());
    }
    Long min = t.optNum();
    Long max = t.optNum();
    if (min != null) {
      g.setTimeRange(min, max);
    }
    common(g, t);
    Long perFamilyLimit = t.optNum();
    Long perFamilyOffset = t.optNum();
    if (perFamilyLimit != null) {
      g.setMaxResultsPerColumnFamily(perFamilyLimit.intValue());
    }
    if (perFamilyOffset != null) {
      g.setRowOffsetPerColumnFamily(perFamilyOffset.intValue());
    }
    if (t.peekAbsent()) {
      t.next();
    } else {
      g.setFilter(filter(t));
    }
    return g;
  }

  private static Scan scan(Tokens t) throws Exception {
    Scan s = new Scan();
    byte[] start = t.bytes();
    boolean startIncl = t.flag();
    byte[] stop = t.bytes();
    boolean stopIncl = t.flag();
    s.withStartRow(start, startIncl).withStopRow(stop, stopIncl);
    s.setReversed(t.flag());
    Long limit = t.optNum();
    if (limit != null) {
      s.setLimit(limit.intValue());
    }
    Long caching = t.optNum();
    if (caching != null) {
      s.setCaching(caching.intValue());
    }
    Long batch = t.optNum();
    if (batch != null) {
      s.setBatch(batch.intValue());
    }
    byte[] prefix = t.optBytes();
    if (prefix != null) {
      s.setStartStopRowForPrefixScan(prefix);
    }
    Long ts = t.optNum();
    if (ts != null) {
      s.setTimestamp(ts);
    }
    int n = t.count();
    for (int i = 0; i < n; i++) {
      byte[] f = t.bytes();
      byte[] q = t.familyOrColumn();
      if (q == null) {
        s.addFamily(f);
      } else {
        s.addColumn(f, q);
      }
    }
    Long versions = t.optNum();
    if (versions != null) {
      s.readVersions(versions.intValue());
    }
    Long min = t.optNum();
    Long max = t.optNum();
    if (min != null) {
      s.setTimeRange(min, max);
    }
    common(s, t);
    Long perFamilyLimit = t.optNum();
    Long perFamilyOffset = t.optNum();
    if (perFamilyLimit != null) {
      s.setMaxResultsPerColumnFamily(perFamilyLimit.intValue());
    }
    if (perFamilyOffset != null) {
      s.setRowOffsetPerColumnFamily(perFamilyOffset.intValue());
    }
    if (t.peekAbsent()) {
      t.next();
    } else {
      s.setFilter(filter(t));
    }
    return s;
  }

  /** Per-family time ranges and on-demand family loading, shared by gets and scans. */
  private static void common(Query q, Tokens t) {
    int m = t.count();
    for (int i = 0; i < m; i++) {
      q.setColumnFamilyTimeRange(t.bytes(), t.num(), t.num());
    }
    Long onDemand = t.optNum();
    if (onDemand != null) {
      q.setLoadColumnFamiliesOnDemand(onDemand != 0);
    }
  }

  private static Filter filter(Tokens t) throws Exception {
    String kind = t.next();
    switch (kind) {
      case "and":
      case "or": {
        int n = t.count();
        List<Filter> members = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          members.add(filter(t));
        }
        return new FilterList(
            kind.equals("and") ? FilterList.Operator.MUST_PASS_ALL : FilterList.Operator.MUST_PASS_ONE, members);
      }
      case "text":
        // Filter-language text, read by HBase's own parser (what the shell and the
        // gateway's filterString use).
        return new ParseFilter().parseFilterString(t.bytes());
      case "skip":
        return new SkipFilter(filter(t));
      case "while":
        return new WhileMatchFilter(filter(t));
      case "prefix":
        return new PrefixFilter(t.bytes());
      case "colprefix":
        return new ColumnPrefixFilter(t.bytes());
      case "mcp": {
        int n = t.count();
        byte[][] prefixes = new byte[n][];
        for (int i = 0; i < n; i++) {
          prefixes[i] = t.bytes();
        }
        return new MultipleColumnPrefixFilter(prefixes);
      }
      case "incstop":
        return new InclusiveStopFilter(t.bytes());
      case "page":
        return new PageFilter(t.num());
      case "rowf":
        return new RowFilter(op(t.next()), comparator(t));
      case "valf":
        return new ValueFilter(op(t.next()), comparator(t));
      case "qualf":
        return new QualifierFilter(op(t.next()), comparator(t));
      case "famf":
        return new FamilyFilter(op(t.next()), comparator(t));
      case "keyonly":
        return new KeyOnlyFilter();
      case "firstkey":
        return new FirstKeyOnlyFilter();
      case "ts": {
        int n = t.count();
        List<Long> stamps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          stamps.add(t.num());
        }
        return new TimestampsFilter(stamps);
      }
      case "colrange": {
        byte[] min = t.optBytes();
        boolean minIncl = t.flag();
        byte[] max = t.optBytes();
        boolean maxIncl = t.flag();
        return new ColumnRangeFilter(min, minIncl, max, maxIncl);
      }
      case "colcount":
        return new ColumnCountGetFilter((int) t.num());
      case "scv":
      case "scve": {
        byte[] f = t.bytes();
        byte[] q = t.bytes();
        CompareOperator op = op(t.next());
        ByteArrayComparable cmp = comparator(t);
        SingleColumnValueFilter scv = kind.equals("scv")
            ? new SingleColumnValueFilter(f, q, op, cmp)
            : new SingleColumnValueExcludeFilter(f, q, op, cmp);
        scv.setFilterIfMissing(t.flag());
        scv.setLatestVersionOnly(t.flag());
        return scv;
      }
      case "colval": {
        byte[] f = t.bytes();
        byte[] q = t.bytes();
        CompareOperator op = op(t.next());
        return new ColumnValueFilter(f, q, op, comparator(t));
      }
      case "keyonlylen":
        return new KeyOnlyFilter(true);
      case "fuzzy": {
        int n = t.count();
        List<Pair<byte[], byte[]>> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          keys.add(new Pair<>(t.bytes(), t.bytes()));
        }
        return new FuzzyRowFilter(keys);
      }
      case "mrr": {
        int n = t.count();
        List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          byte[] start = t.bytes();
          boolean startIncl = t.flag();
          byte[] stop = t.bytes();
          ranges.add(new MultiRowRangeFilter.RowRange(start, startIncl, stop, t.flag()));
        }
        return new MultiRowRangeFilter(ranges);
      }
      case "colpage":
        return new ColumnPaginationFilter((int) t.num(), (int) t.num());
      case "colpagek":
        return new ColumnPaginationFilter((int) t.num(), t.bytes());
      case "dep": {
        byte[] f = t.bytes();
        byte[] q = t.bytes();
        boolean drop = t.flag();
        if (t.peekAbsent()) {
          t.next();
          t.next();
          return new DependentColumnFilter(f, q, drop);
        }
        CompareOperator op = op(t.next());
        return new DependentColumnFilter(f, q, drop, op, comparator(t));
      }
      default:
        throw new BadCommand("unknown filter " + kind);
    }
  }

  private static ByteArrayComparable comparator(Tokens t) {
    String kind = t.next();
    switch (kind) {
      case "bin":
        return new BinaryComparator(t.bytes());
      case "binp":
        return new BinaryPrefixComparator(t.bytes());
      case "regex":
        return new RegexStringComparator(new String(t.bytes(), StandardCharsets.UTF_8));
      case "regexi":
        return new RegexStringComparator(
            new String(t.bytes(), StandardCharsets.UTF_8), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
      case "sub":
        return new SubstringComparator(new String(t.bytes(), StandardCharsets.UTF_8));
      case "bincomp": {
        int offset = t.count();
        return new BinaryComponentComparator(t.bytes(), offset);
      }
      case "long":
        return new LongComparator(t.num());
      case "bit": {
        String op = t.next();
        BitComparator.BitwiseOp bop = op.equals("and") ? BitComparator.BitwiseOp.AND
            : op.equals("or") ? BitComparator.BitwiseOp.OR
            : op.equals("xor") ? BitComparator.BitwiseOp.XOR : null;
        if (bop == null) {
          throw new BadCommand("unknown bitwise op " + op);
        }
        return new BitComparator(t.bytes(), bop);
      }
      case "null":
        return new NullComparator();
      default:
        throw new BadCommand("unknown comparator " + kind);
    }
  }

  private static CompareOperator op(String s) {
    switch (s) {
      case "lt":
        return CompareOperator.LESS;
      case "le":
        return CompareOperator.LESS_OR_EQUAL;
      case "eq":
        return CompareOperator.EQUAL;
      case "ne":
        return CompareOperator.NOT_EQUAL;
      case "ge":
        return CompareOperator.GREATER_OR_EQUAL;
      case "gt":
        return CompareOperator.GREATER;
      default:
        throw new BadCommand("unknown compare op " + s);
    }
  }

  // ---- answers ----

  private static String rows(Result[] results) {
    StringBuilder s = new StringBuilder("rows ").append(results.length);
    for (Result r : results) {
      Cell[] cells = r.rawCells();
      if (cells == null || cells.length == 0) {
        s.append(" . 0");
        continue;
      }
      s.append(' ').append(hex(r.getRow())).append(' ').append(cells.length);
      for (Cell c : cells) {
        s.append(' ').append(hex(CellUtil.cloneFamily(c)));
        s.append(' ').append(hex(CellUtil.cloneQualifier(c)));
        s.append(' ').append(c.getTimestamp());
        s.append(' ').append(hex(CellUtil.cloneValue(c)));
        s.append(' ').append(c.getTypeByte());
      }
    }
    return s.toString();
  }

  private static String hex(byte[] b) {
    if (b == null || b.length == 0) {
      return ".";
    }
    StringBuilder s = new StringBuilder(b.length * 2);
    for (byte x : b) {
      s.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    }
    return s.toString();
  }

  /** A line this tool cannot read: a bug of the test, never an answer. */
  private static final class BadCommand extends RuntimeException {
    BadCommand(String message) {
      super(message);
    }
  }

  /** The tokens of one command line, read in order. */
  private static final class Tokens {
    private final String[] words;
    private int at;

    Tokens(String line) {
      words = line.split(" ", -1);
    }

    String next() {
      if (at >= words.length) {
        throw new BadCommand("the command ends early");
      }
      return words[at++];
    }

    boolean peekAbsent() {
      return at < words.length && words[at].equals("-");
    }

    void end() {
      if (at != words.length) {
        throw new BadCommand("unread tokens from " + at + ": " + words[at]);
      }
    }

    int count() {
      return (int) num();
    }

    long num() {
      return parse(next());
    }

    Long optNum() {
      String w = next();
      return w.equals("-") ? null : parse(w);
    }

    private static long parse(String w) {
      try {
        return Long.parseLong(w);
      } catch (NumberFormatException e) {
        throw new BadCommand("not a number: " + w);
      }
    }

    boolean flag() {
      String w = next();
      if (w.equals("1")) {
        return true;
      }
      if (w.equals("0")) {
        return false;
      }
      throw new BadCommand("not a flag: " + w);
    }

    byte[] bytes() {
      return unhex(next());
    }

    /** "-": null (absent); otherwise bytes ("." empty). */
    byte[] optBytes() {
      String w = next();
      return w.equals("-") ? null : unhex(w);
    }

    /** "*": null (a whole family); otherwise bytes. */
    byte[] familyOrColumn() {
      String w = next();
      return w.equals("*") ? null : unhex(w);
    }

    private static byte[] unhex(String s) {
      if (s.equals(".")) {
        return new byte[0];
      }
      if (s.length() % 2 != 0) {
        throw new BadCommand("odd hex length: " + s);
      }
      byte[] b = new byte[s.length() / 2];
      for (int i = 0; i < b.length; i++) {
        int hi = Character.digit(s.charAt(2 * i), 16);
        int lo = Character.digit(s.charAt(2 * i + 1), 16);
        if (hi < 0 || lo < 0) {
          throw new BadCommand("not hex: " + s);
        }
        b[i] = (byte) (hi * 16 + lo);
      }
      return b;
    }
  }
}
