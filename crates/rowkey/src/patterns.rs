//! Whole-schema patterns, each a schema and a query plan (these
//! examples run as doctests).
//!
//! # Logs and time series
//!
//! `[hostname][event][ts newest first]`: the latest N events of a host are the first N
//! rows of one prefix scan. When time is the only dimension, `[bucket][ts][host][event]`
//! with `bucket = ts % 16` spreads writes, and a time range reads all 16 buckets.
//!
//! ```
//! use basalt_rowkey::*;
//! let logs = Schema::builder()
//!     .field("host", FieldType::Str(Width::Variable))
//!     .field("event", FieldType::Str(Width::Variable))
//!     .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::ReverseLong })
//!     .build()?;
//! let plan = logs.plan(&Query::new().fixed("web1").fixed("login"))?;
//! assert_eq!(plan.ranges.len(), 1);
//! let newer = logs.encode(&[Value::str("web1"), Value::str("login"), Value::Timestamp(2_000)])?;
//! let older = logs.encode(&[Value::str("web1"), Value::str("login"), Value::Timestamp(1_000)])?;
//! assert!(newer < older && plan.ranges[0].contains(&newer));
//!
//! let bucketed = Schema::builder()
//!     .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary })
//!     .field("host", FieldType::Str(Width::Variable))
//!     .field("event", FieldType::Str(Width::Variable))
//!     .salt(Salt::modulo("ts", 16))
//!     .build()?;
//! let plan = bucketed.plan(&Query::new().between(Value::Timestamp(0), Value::Timestamp(60_000)))?;
//! assert_eq!(plan.buckets().len(), 16);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Transactions, three access paths
//!
//! Seller view `[seller][ts][order]`, buyer view `[buyer][ts][order]` and the order index
//! `[order]` are three tables written together; each read path is one range.
//!
//! ```
//! use basalt_rowkey::*;
//! let ts = FieldType::Timestamp { unit: TimeUnit::Seconds, format: TsFormat::ReverseLong };
//! let view = |who: &str| Schema::builder()
//!     .field(who, FieldType::U64)
//!     .field("ts", ts.clone())
//!     .field("order", FieldType::U64)
//!     .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &[who], 32))
//!     .build();
//! let (seller, buyer) = (view("seller")?, view("buyer")?);
//! let order = Schema::builder().field("order", FieldType::U64).build()?;
//! let q = Query::new().fixed(Value::UInt(42))
//!     .between(Value::Timestamp(1_700_000_000), Value::Timestamp(1_700_086_400));
//! assert_eq!(seller.plan(&q)?.ranges.len(), 1);
//! assert_eq!(buyer.plan(&q)?.ranges.len(), 1);
//! assert_eq!(order.plan(&Query::new().fixed(Value::UInt(9)))?.ranges.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Files, `userID(6) + time(8) + fileID(6)`
//!
//! A fixed-width decimal key: user 2's files from 2012-09-16 to 2012-09-17.
//!
//! ```
//! use basalt_rowkey::*;
//! let files = Schema::builder()
//!     .field("user", FieldType::Decimal { digits: 6 })
//!     .field("time", FieldType::Decimal { digits: 8 })
//!     .field("file", FieldType::Decimal { digits: 6 })
//!     .build()?;
//! let key = files.encode(&[Value::UInt(2), Value::UInt(20120916), Value::UInt(8)])?;
//! assert_eq!(&key[..], b"00000220120916000008");
//! let plan = files.plan(&Query::new().fixed(Value::UInt(2))
//!     .between_inclusive(Value::UInt(20120916), Value::UInt(20120917)))?;
//! assert_eq!(&plan.ranges[0].start[..], b"00000220120916");
//! assert_eq!(&plan.ranges[0].stop[..], b"00000220120918");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Vehicle telemetry, `ENGINE_TYPE-…-ts-VIN`
//!
//! The enumerable, low-cardinality engine type first, readable separators.
//!
//! ```
//! use basalt_rowkey::*;
//! let engines = EnumCodes::new([("YCK09360", "YCK09360"), ("WP10H400", "WP10H400")])?;
//! let telemetry = Schema::builder()
//!     .field("engine", FieldType::Enum(engines))
//!     .literal("-")
//!     .field("variant", FieldType::Decimal { digits: 2 })
//!     .literal("-")
//!     .field("ts", FieldType::Decimal { digits: 13 })
//!     .literal("-")
//!     .field("vin", FieldType::Str(Width::Fixed { len: 12, pad: Pad::Right(b' ') }))
//!     .build()?;
//! let key = telemetry.encode(&[Value::str("YCK09360"), Value::UInt(60),
//!     Value::UInt(1638290481900), Value::str("9011D6L00124")])?;
//! assert_eq!(&key[..], b"YCK09360-60-1638290481900-9011D6L00124");
//! let plan = telemetry.plan(&Query::new().fixed("YCK09360").fixed(Value::UInt(60))
//!     .between(Value::UInt(1638290481000), Value::UInt(1638290486000)))?;
//! assert!(plan.ranges[0].contains(&key));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Telecom call records, `XX_phone_yyyyMMddHHmmss`
//!
//! The call-record salt, from the phone's last four digits and the month: "calls of phone P
//! between 2021-09 and 2021-11" is three scans with three salts, each bounded by its
//! month. (With a decimal time field the planner splits on the `yyyyMM` digit prefix, so
//! end the range at `20211200000000`, not `20211201000000`, to avoid a fourth, empty
//! "day 00" range.)
//!
//! ```
//! use basalt_rowkey::*;
//! let calls = Schema::builder()
//!     .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
//!     .literal("_")
//!     .field("calltime", FieldType::Decimal { digits: 14 })
//!     .salt(Salt::call_record("phone", "calltime", 6))
//!     .build()?;
//! let key = calls.encode(&[Value::str("13812345678"), Value::UInt(20210915123045)])?;
//! assert_eq!(&key[..], b"2_13812345678_20210915123045");
//! let plan = calls.plan(&Query::new().fixed("13812345678")
//!     .between(Value::UInt(20210901000000), Value::UInt(20211200000000)))?;
//! let salts: Vec<_> = plan.ranges.iter().map(|r| r.bucket).collect();
//! assert_eq!(salts, vec![Some(2), Some(4), Some(5)]);
//! assert_eq!(&plan.ranges[1].start[..], b"4_13812345678_20211000000000");
//! assert_eq!(&plan.ranges[1].stop[..], b"4_13812345678_20211100000000");
//! // Pre-split in the design's own format: 0|, 1|, ... 4|
//! assert_eq!(split::call_record_split_keys(6).len(), 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crash reports (Socorro)
//!
//! The salt is the first character of the crash id as written (Socorro's
//! `ooid[0] + ooid[-6:] + ooid`): 16 lower-case hex buckets plus `A`..`F` for ids sent in
//! upper case, which Socorro writes but never reads back. A day's crashes are one range
//! per bucket (22), merged by the logical key. The date must be the id's own last six
//! characters.
//!
//! ```
//! use basalt_rowkey::*;
//! let crashes = Schema::builder()
//!     .field("date", FieldType::Decimal { digits: 6 })
//!     .field("ooid", FieldType::Str(Width::Fixed { len: 36, pad: Pad::Right(b' ') }))
//!     .salt(Salt::socorro("ooid"))
//!     .build()?;
//! let id = "e1b8c37a-6b6e-4b8a-9e3c-cb0b52210324";
//! let key = crashes.encode(&[Value::UInt(210324), Value::str(id)])?;
//! assert_eq!(&key[..7], b"e210324");
//! assert_eq!(crashes.logical_key(&key)?, &key[1..]);
//! let plan = crashes.plan(&Query::new().fixed(Value::UInt(210324)))?;
//! assert_eq!(plan.ranges.len(), 22);
//! assert_eq!(&plan.ranges[14].start[..], b"e210324");
//! assert_eq!(&plan.ranges[19].start[..], b"D210324");
//! // Socorro takes the date from the id: another date is refused.
//! assert!(crashes.encode(&[Value::UInt(210325), Value::str(id)]).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
