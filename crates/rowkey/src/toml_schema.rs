//! The schema text format (TOML), used by the CLI. See the crate docs for an example.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::calendar::CalendarUnit;
use crate::error::SchemaError;
use crate::field::{Cycle, EnumCodes, Field, FieldType, Order, Pad, TimeUnit, TsFormat, Width};
use crate::hash::{HashAlgo, JavaBucketForm, JavaHash};
use crate::salt::{decimal_digits, Part, Salt, SaltInput, SaltRendering, SaltStrategy};
use crate::schema::Schema;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SchemaSpec {
    soft_limit: Option<usize>,
    salt: Option<SaltSpec>,
    #[serde(default)]
    fields: Vec<FieldSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ByteSpec {
    Int(u8),
    Str(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldSpec {
    name: Option<String>,
    #[serde(rename = "type")]
    ty: String,
    order: Option<String>,
    width: Option<usize>,
    pad: Option<ByteSpec>,
    pad_side: Option<String>,
    delimiter: Option<ByteSpec>,
    rest: Option<bool>,
    digits: Option<u8>,
    unit: Option<String>,
    format: Option<String>,
    codes: Option<BTreeMap<String, String>>,
    cycle: Option<String>,
    value: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SaltSpec {
    strategy: String,
    buckets: Option<u32>,
    algorithm: Option<String>,
    seed: Option<u32>,
    #[serde(default)]
    inputs: Vec<String>,
    chars: Option<u8>,
    form: Option<String>,
    width: Option<u8>,
    rendering: Option<String>,
    separator: Option<String>,
}

fn byte_of(field: &str, what: &str, b: &ByteSpec) -> Result<u8, SchemaError> {
    match b {
        ByteSpec::Int(i) => Ok(*i),
        ByteSpec::Str(s) if s.len() == 1 => Ok(s.as_bytes()[0]),
        ByteSpec::Str(_) => {
            Err(SchemaError::InvalidField { field: field.to_owned(), reason: format!("{what} must be one byte") })
        }
    }
}

fn field_of(i: usize, f: FieldSpec) -> Result<Field, SchemaError> {
    let name = f.name.clone().unwrap_or_else(|| format!("_lit{i}"));
    let bad = |reason: String| SchemaError::InvalidField { field: name.clone(), reason };
    let width = || -> Result<Width, SchemaError> {
        if let Some(len) = f.width {
            let pad = match &f.pad {
                Some(p) => byte_of(&name, "pad", p)?,
                None => 0,
            };
            let pad = match f.pad_side.as_deref() {
                None | Some("right") => Pad::Right(pad),
                Some("left") => Pad::Left(pad),
                Some(o) => return Err(bad(format!("pad_side `{o}` (left|right)"))),
            };
            Ok(Width::Fixed { len, pad })
        } else if f.rest == Some(true) {
            Ok(Width::Rest)
        } else if let Some(d) = &f.delimiter {
            Ok(Width::Delimited(byte_of(&name, "delimiter", d)?))
        } else {
            Ok(Width::Variable)
        }
    };
    let unit = match f.unit.as_deref() {
        None | Some("ms") | Some("millis") => TimeUnit::Millis,
        Some("s") | Some("seconds") => TimeUnit::Seconds,
        Some(o) => return Err(bad(format!("unit `{o}` (s|ms)"))),
    };
    let ty = match f.ty.as_str() {
        "u8" => FieldType::U8,
        "u16" => FieldType::U16,
        "u32" => FieldType::U32,
        "u64" => FieldType::U64,
        "i8" => FieldType::I8,
        "i16" => FieldType::I16,
        "i32" => FieldType::I32,
        "i64" => FieldType::I64,
        "f32" => FieldType::F32,
        "f64" => FieldType::F64,
        "phoenix_float" => FieldType::PhoenixFloat,
        "phoenix_double" => FieldType::PhoenixDouble,
        "bool" => FieldType::Bool,
        "bytes" => FieldType::Bytes(width()?),
        "string" => FieldType::Str(width()?),
        "reversed_string" => FieldType::ReversedStr(width()?),
        "decimal" => FieldType::Decimal { digits: f.digits.ok_or_else(|| bad("decimal needs `digits`".into()))? },
        "timestamp" => FieldType::Timestamp {
            unit,
            format: match f.format.as_deref() {
                None | Some("binary") => TsFormat::Binary,
                Some("reverse_long") => TsFormat::ReverseLong,
                Some(o) => return Err(bad(format!("format `{o}` (binary|reverse_long)"))),
            },
        },
        "enum" => {
            let codes = f.codes.clone().ok_or_else(|| bad("enum needs `codes`".into()))?;
            FieldType::Enum(EnumCodes::new(codes.into_iter().map(|(n, c)| (n, c.into_bytes())))?)
        }
        "literal" => {
            FieldType::Literal(f.value.clone().ok_or_else(|| bad("literal needs `value`".into()))?.into_bytes())
        }
        "cyclic" => FieldType::Cyclic {
            unit,
            cycle: match f.cycle.as_deref() {
                None | Some("yearly") => Cycle::Yearly,
                Some("monthly") => Cycle::Monthly,
                Some(o) => return Err(bad(format!("cycle `{o}` (yearly|monthly)"))),
            },
        },
        other => return Err(bad(format!("unknown type `{other}`"))),
    };
    let order = match f.order.as_deref() {
        None | Some("asc") => Order::Asc,
        Some("desc") => Order::Desc,
        Some(o) => return Err(bad(format!("order `{o}` (asc|desc)"))),
    };
    Ok(Field::new(name, ty).with_order(order))
}

fn part_of(s: &str) -> Result<Part, SchemaError> {
    let num = |rest: &str| rest.parse::<usize>().map_err(|_| SchemaError::InvalidSalt(format!("bad part `{s}`")));
    Ok(match s {
        "text" => Part::Text,
        "encoded" => Part::Encoded,
        "year" => Part::Calendar(CalendarUnit::Year),
        "month" => Part::Calendar(CalendarUnit::Month),
        "day" => Part::Calendar(CalendarUnit::Day),
        _ if s.starts_with("first") => Part::First(num(&s[5..])?),
        _ if s.starts_with("last") => Part::Last(num(&s[4..])?),
        _ => return Err(SchemaError::InvalidSalt(format!("unknown part `{s}`"))),
    })
}

fn input_of(s: &str) -> Result<SaltInput, SchemaError> {
    match s.split_once(':') {
        None => Ok(SaltInput::text(s)),
        Some((f, p)) => Ok(SaltInput::new(f, part_of(p)?)),
    }
}

fn algo_of(s: &SaltSpec) -> Result<HashAlgo, SchemaError> {
    Ok(match s.algorithm.as_deref() {
        Some("md5") => HashAlgo::Md5,
        Some("java_string") => HashAlgo::JavaString,
        Some("java_bytes") => HashAlgo::JavaBytes,
        Some("crc32") => HashAlgo::Crc32,
        Some("murmur3") => HashAlgo::Murmur3 { seed: s.seed.unwrap_or(0) },
        other => {
            return Err(SchemaError::InvalidSalt(format!(
                "algorithm {other:?} (md5|java_string|java_bytes|crc32|murmur3)"
            )))
        }
    })
}

fn salt_of(s: SaltSpec) -> Result<Salt, SchemaError> {
    let need_buckets =
        || s.buckets.ok_or_else(|| SchemaError::InvalidSalt(format!("`{}` needs `buckets`", s.strategy)));
    let inputs = s.inputs.iter().map(|i| input_of(i)).collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&str> = inputs.iter().map(|i| i.field()).collect();
    let nth = |i: usize| {
        names
            .get(i)
            .copied()
            .ok_or_else(|| SchemaError::InvalidSalt(format!("`{}` needs {} inputs", s.strategy, i + 1)))
    };
    let first_input =
        || inputs.first().cloned().ok_or_else(|| SchemaError::InvalidSalt(format!("`{}` needs an input", s.strategy)));
    let generic = |strategy: SaltStrategy| Salt::new(strategy, SaltRendering::Bytes(1));
    let generic_hex = |strategy: SaltStrategy| Salt::new(strategy, SaltRendering::Hex(1));
    let mut salt = match s.strategy.as_str() {
        "hash" => generic(SaltStrategy::Hash { algo: algo_of(&s)?, inputs: inputs.clone(), buckets: need_buckets()? }),
        "logical_key_hash" => generic(SaltStrategy::LogicalKeyHash { algo: algo_of(&s)?, buckets: need_buckets()? }),
        "md5_hex" => Salt::new(
            SaltStrategy::Md5Hex { inputs: inputs.clone(), chars: u32::from(s.chars.unwrap_or(4)) },
            SaltRendering::Hex(s.chars.unwrap_or(4)),
        ),
        "modulo" => generic(SaltStrategy::Modulo { input: first_input()?, buckets: need_buckets()? }),
        "random" => Salt::random(need_buckets()?),
        "round_robin" | "hbasewd_one_byte_prefix" => {
            let b = need_buckets()?;
            Salt::hbasewd_one_byte_prefix(u8::try_from(b).unwrap_or(u8::MAX))
        }
        "xor_java_hash" => generic(SaltStrategy::XorJavaHash { inputs: inputs.clone(), buckets: need_buckets()? }),
        "sum_mod" => generic(SaltStrategy::SumMod { inputs: inputs.clone(), buckets: need_buckets()? }),
        "first_hex_char" => generic_hex(SaltStrategy::FirstHexChar { input: first_input()? }),
        "socorro" => match names.get(1) {
            Some(date) => Salt::socorro_with_date(nth(0)?, date),
            None => Salt::socorro(nth(0)?),
        },
        "java_hash" => {
            let hash = match s.algorithm.as_deref() {
                Some("java_string") | Some("string") => JavaHash::String,
                Some("java_bytes") | Some("bytes") => JavaHash::Bytes,
                Some("java_long") | Some("long") => JavaHash::Long,
                other => {
                    return Err(SchemaError::InvalidSalt(format!(
                        "java_hash algorithm {other:?} (java_string|java_bytes|java_long)"
                    )))
                }
            };
            let form = s.form.as_deref().and_then(JavaBucketForm::from_name).ok_or_else(|| {
                SchemaError::InvalidSalt(format!(
                    "java_hash form {:?} (abs_of_rem|abs_then_rem|mask_then_rem|floor_mod|byte_of_rem)",
                    s.form
                ))
            })?;
            generic(SaltStrategy::JavaHash { hash, form, inputs: inputs.clone(), buckets: need_buckets()? })
        }
        "hbase_book" => Salt::hbase_book_timestamp(nth(0)?, need_buckets()?),
        "phoenix" => Salt::phoenix(need_buckets()?),
        "hbasewd_hash_prefix" => Salt::hbasewd_hash_prefix(need_buckets()?),
        "opentsdb" => Salt::opentsdb(s.width.unwrap_or(1), need_buckets()?, &names),
        "call_record" => Salt::call_record(nth(0)?, nth(1)?, need_buckets()?),
        "phone_year" => Salt::phone_year(nth(0)?, nth(1)?, need_buckets()?),
        other => return Err(SchemaError::InvalidSalt(format!("unknown strategy `{other}`"))),
    };
    if let Some(r) = s.rendering.as_deref() {
        let n = u64::from(salt.buckets().saturating_sub(1));
        let hex_w = (1..=8u8).find(|w| 16u64.pow(u32::from(*w)) > n).unwrap_or(8);
        salt.rendering = match r {
            "byte" => SaltRendering::Bytes(1),
            "bytes" => SaltRendering::Bytes(s.width.unwrap_or(1)),
            "decimal" => SaltRendering::Decimal(s.width.unwrap_or_else(|| decimal_digits(n))),
            "hex" => SaltRendering::Hex(s.width.unwrap_or(hex_w)),
            o => return Err(SchemaError::InvalidSalt(format!("rendering `{o}`"))),
        };
    }
    if let Some(sep) = s.separator {
        salt.separator = sep.into_bytes();
    }
    Ok(salt)
}

impl Schema {
    /// Parses a schema from its TOML text form.
    ///
    /// ```
    /// let s = basalt_rowkey::Schema::from_toml_str(r#"
    ///     [salt]
    ///     strategy = "call_record"
    ///     buckets = 6
    ///     inputs = ["phone", "calltime"]
    ///
    ///     [[fields]]
    ///     name = "phone"
    ///     type = "string"
    ///     width = 11
    ///
    ///     [[fields]]
    ///     type = "literal"
    ///     value = "_"
    ///
    ///     [[fields]]
    ///     name = "calltime"
    ///     type = "decimal"
    ///     digits = 14
    /// "#).unwrap();
    /// assert_eq!(s.bucket_count(), Some(6));
    /// ```
    pub fn from_toml_str(text: &str) -> Result<Schema, SchemaError> {
        let spec: SchemaSpec = toml::from_str(text).map_err(|e| SchemaError::Toml(e.to_string()))?;
        let mut b = Schema::builder();
        for (i, f) in spec.fields.into_iter().enumerate() {
            b = b.push(field_of(i, f)?);
        }
        if let Some(s) = spec.salt {
            b = b.salt(salt_of(s)?);
        }
        if let Some(l) = spec.soft_limit {
            b = b.soft_limit(l);
        }
        b.build()
    }
}
