//! The bucket of a key: each strategy's computation over the salt's inputs, and the
//! bytes each [`Part`] of a field's value contributes.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use super::{Part, Salt, SaltInput, SaltRendering, SaltStrategy, SOCORRO_CHARS};
use crate::calendar;
use crate::codec;
use crate::error::KeyError;
use crate::field::{Field, FieldType};
use crate::hash::{self, JavaBucketForm, JavaHash};
use crate::value::Value;

impl Salt {
    /// Bucket of a key. `value_of(i)` gives the value of field `i` (None if unknown);
    /// `logical` is the logical key (needed by salts over the whole logical key).
    pub(crate) fn bucket<'v>(
        &self,
        fields: &[Field],
        value_of: &dyn Fn(usize) -> Option<&'v Value>,
        logical: Option<&[u8]>,
    ) -> Result<u32, KeyError> {
        let n = self.base_buckets().max(1);
        let part = |inp: &SaltInput| -> Result<Cow<'v, [u8]>, KeyError> {
            let field = fields
                .get(inp.index)
                .ok_or_else(|| KeyError::InvalidQuery { reason: format!("salt field `{}` unresolved", inp.field) })?;
            let v = value_of(inp.index)
                .ok_or_else(|| KeyError::InvalidQuery { reason: format!("salt needs a value for `{}`", inp.field) })?;
            part_bytes(field, v, inp.part)
        };
        let concat = |inputs: &[SaltInput]| -> Result<Cow<'v, [u8]>, KeyError> {
            if let [one] = inputs {
                return part(one);
            }
            let mut d = Vec::new();
            for i in inputs {
                d.extend_from_slice(&part(i)?);
            }
            Ok(Cow::Owned(d))
        };
        let whole_key =
            || logical.ok_or_else(|| KeyError::InvalidQuery { reason: "salt needs the whole logical key".into() });
        Ok(match &self.strategy {
            SaltStrategy::Hash { algo, inputs, .. } => algo.bucket(&concat(inputs)?, n),
            SaltStrategy::LogicalKeyHash { algo, .. } => algo.bucket(whole_key()?, n),
            SaltStrategy::JavaHash { hash, form, inputs, .. } => {
                let data: Cow<'_, [u8]> = if inputs.is_empty() { Cow::Borrowed(whole_key()?) } else { concat(inputs)? };
                let name = inputs.first().map_or("(row key)", |i| i.field.as_str());
                let h = match hash {
                    JavaHash::Bytes => hash::java_bytes_hash(&data),
                    JavaHash::String => hash::java_string_hash_utf8(&data),
                    JavaHash::Long => {
                        let v =
                            std::str::from_utf8(&data).ok().and_then(|t| t.parse::<i64>().ok()).ok_or_else(|| {
                                KeyError::OutOfRange {
                                    field: name.to_owned(),
                                    reason: "Long.hashCode needs a decimal integer that fits a Java long".into(),
                                }
                            })?;
                        hash::java_long_hash(v)
                    }
                };
                self.bucket_of_java(form.apply(h, n), name)?
            }
            SaltStrategy::OpenTsdb { inputs, .. } => {
                let metric = match inputs.first() {
                    Some(m) => part(m)?,
                    None => Cow::Borrowed(&[][..]),
                };
                if metric.iter().all(|b| *b == 0) {
                    0 // annotation row: OpenTSDB leaves it unsalted
                } else {
                    hash::java_abs_mod(hash::java_bytes_hash(&concat(inputs)?), n)
                }
            }
            SaltStrategy::Md5Hex { inputs, chars } => {
                let d = hash::md5(&concat(inputs)?);
                let top = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
                top >> (32 - 4 * (*chars).clamp(1, 7))
            }
            SaltStrategy::Modulo { input, .. } => rem(number(&part(input)?, &input.field)?, n),
            SaltStrategy::SumMod { inputs, .. } => {
                let mut sum = 0i128;
                for i in inputs {
                    sum = sum.saturating_add(number(&part(i)?, &i.field)?);
                }
                rem(sum, n)
            }
            SaltStrategy::XorJavaHash { inputs, .. } => {
                let mut x = 0i32;
                for i in inputs {
                    let field = fields.get(i.index).ok_or_else(|| KeyError::InvalidQuery {
                        reason: format!("salt field `{}` unresolved", i.field),
                    })?;
                    let v = value_of(i.index).ok_or_else(|| KeyError::InvalidQuery {
                        reason: format!("salt needs a value for `{}`", i.field),
                    })?;
                    // `String.hashCode` of the part as Java holds it (UTF-16 units).
                    x ^= part_units(field, v, i.part)?
                        .iter()
                        .fold(0i32, |h, &c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
                }
                let name = inputs.first().map_or("", |i| i.field.as_str());
                self.bucket_of_java(JavaBucketForm::AbsThenRem.apply(x, n), name)?
            }
            SaltStrategy::FirstHexChar { input } => {
                let t = part(input)?;
                match t.first().and_then(|c| char::from(*c).to_digit(16)) {
                    Some(d) => d,
                    None => {
                        return Err(KeyError::OutOfRange {
                            field: input.field.clone(),
                            reason: "the salt is the first hex digit of this field, and it starts with none".into(),
                        })
                    }
                }
            }
            SaltStrategy::Socorro { id, date } => {
                let t = part(id)?;
                if let Some(d) = date {
                    let want = part(d)?;
                    let tail = t.get(t.len().saturating_sub(6)..).unwrap_or_default();
                    if t.len() < 6 || *want != *tail {
                        return Err(KeyError::OutOfRange {
                            field: d.field.clone(),
                            reason: format!(
                                "Socorro takes the date part of the row key from the id's last six characters \
                                 (`{}`), but this field is `{}`; pass the id's own date",
                                String::from_utf8_lossy(tail),
                                String::from_utf8_lossy(&want)
                            ),
                        });
                    }
                }
                match t.first().and_then(|c| SOCORRO_CHARS.iter().position(|x| x == c)) {
                    Some(p) => p as u32,
                    None => {
                        return Err(KeyError::OutOfRange {
                            field: id.field.clone(),
                            reason: "a Socorro crash id starts with a hex digit, its salt; Socorro would \
                                     store this id under a prefix none of its scanners reads, so Basalt \
                                     refuses it: use an id made like Socorro's (a uuid ending in the date)"
                                .into(),
                        })
                    }
                }
            }
            SaltStrategy::Random { .. } => random_u64().rem_euclid(u64::from(n)) as u32,
            SaltStrategy::RoundRobin { .. } => {
                // HBaseWD: PREFIXES[nextPrefix++]; nextPrefix = (byte) (nextPrefix % maxPrefix)
                let step = |c: u8| Some(((u32::from(c) + 1) % n) as u8);
                match self.counter.0.fetch_update(AtomicOrdering::Relaxed, AtomicOrdering::Relaxed, step) {
                    Ok(prev) | Err(prev) => u32::from(prev) % n,
                }
            }
        })
    }

    /// The bucket of a Java result `j` (negative ones are extra buckets, or the regular
    /// bucket whose bytes they share).
    fn bucket_of_java(&self, j: i32, field: &str) -> Result<u32, KeyError> {
        let n = self.base_buckets();
        if j >= 0 {
            return Ok(j as u32);
        }
        if let SaltRendering::Bytes(w) = self.rendering {
            let modulus = 1i128 << (8 * u32::from(w.min(8)));
            let wrapped = i128::from(j).rem_euclid(modulus);
            if wrapped < i128::from(n) {
                return Ok(wrapped as u32);
            }
            if let Some(i) = self.negatives.iter().position(|x| *x == j) {
                return Ok(n + i as u32);
            }
        }
        let text = match self.rendering {
            SaltRendering::Decimal(w) => format!("-{:0w$}", j.unsigned_abs(), w = usize::from(w)),
            _ => j.to_string(),
        };
        Err(KeyError::OutOfRange {
            field: field.to_owned(),
            reason: format!(
                "the Java expression gives the negative bucket {j} (its hashes reach Integer.MIN_VALUE, \
                 where Math.abs stays negative); Java would write the salt `{text}`, a prefix of another \
                 width that no bucket scan or split key covers, so Basalt refuses this key \
                 (change the input or use a byte rendering, which keeps negative buckets)"
            ),
        })
    }
}

fn rem(x: i128, n: u32) -> u32 {
    x.rem_euclid(i128::from(n)) as u32
}

fn number(b: &[u8], field: &str) -> Result<i128, KeyError> {
    std::str::from_utf8(b)
        .ok()
        .and_then(|s| s.parse::<i128>().ok())
        .ok_or_else(|| KeyError::OutOfRange { field: field.to_owned(), reason: "salt input is not a number".into() })
}

fn random_u64() -> u64 {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(SEQ.fetch_add(1, AtomicOrdering::Relaxed));
    h.finish()
}

/// The UTF-16 code units of `part` of value `v` of `field`, as Java holds the string:
/// `First(n)` / `Last(n)` cut the text as Java's `substring(0, n)` /
/// `substring(length - n)` do, counting UTF-16 units (a character outside the BMP is
/// two), and refuse a text shorter than `n` units (Java throws there).
pub(crate) fn part_units(field: &Field, v: &Value, part: Part) -> Result<Vec<u16>, KeyError> {
    let (n, from_end) = match part {
        Part::First(n) => (n, false),
        Part::Last(n) => (n, true),
        Part::Encoded | Part::Text | Part::Calendar(_) => {
            return Ok(hash::java_utf8_decode(&part_bytes(field, v, part)?));
        }
    };
    let units = hash::java_utf8_decode(&codec::text_bytes(field, v));
    if units.len() < n {
        return Err(KeyError::OutOfRange {
            field: field.name.clone(),
            reason: format!(
                "the salt takes {} {n} UTF-16 units of this field (Java's substring), and its text has {}",
                if from_end { "the last" } else { "the first" },
                units.len()
            ),
        });
    }
    let kept = if from_end { units.get(units.len() - n..) } else { units.get(..n) };
    Ok(kept.unwrap_or_default().to_vec())
}

/// Bytes of `part` of value `v` of `field`.
pub(crate) fn part_bytes<'v>(field: &Field, v: &'v Value, part: Part) -> Result<Cow<'v, [u8]>, KeyError> {
    Ok(Cow::Owned(match part {
        Part::Encoded => {
            let mut out = Vec::new();
            codec::encode_field(field, Some(v), &mut out)?;
            out
        }
        Part::Text => match v {
            Value::Str(s) => return Ok(Cow::Borrowed(s.as_bytes())),
            Value::Bytes(b) => return Ok(Cow::Borrowed(b)),
            _ => codec::text_bytes(field, v),
        },
        Part::First(_) | Part::Last(_) => {
            // Java's `getBytes(UTF_8)` of the substring: a surrogate left alone by the
            // cut becomes `?`.
            let units = part_units(field, v, part)?;
            char::decode_utf16(units).map(|c| c.unwrap_or('?')).collect::<String>().into_bytes()
        }
        Part::Calendar(unit) => {
            let per = match &field.ty {
                FieldType::Timestamp { unit, .. } => unit.per_second(),
                _ => 1,
            };
            match v {
                Value::Timestamp(t) | Value::Int(t) => calendar::bucket_text(*t, per, unit).into_bytes(),
                other => {
                    return Err(KeyError::TypeMismatch {
                        field: field.name.clone(),
                        expected: "timestamp",
                        got: other.kind(),
                    })
                }
            }
        }
    }))
}
