//! Key schemas: fields plus an optional salt; encoding and decoding of whole keys.

use bytes::Bytes;

use crate::codec;
use crate::error::{KeyError, KeyWarning, SchemaError, HBASE_MAX_ROW_KEY_LEN};
use crate::field::{Field, FieldType, Order};
use crate::salt::Salt;
use crate::value::Value;

/// Default soft limit on key length (HBase's advice: 10-100 bytes).
pub const DEFAULT_SOFT_LIMIT: usize = 100;

/// A row-key schema: an ordered list of typed fields and an optional salt prefix.
///
/// Values passed to [`Schema::encode`] are those of the *value fields*, in order:
/// literal (separator) fields take no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    pub(crate) fields: Vec<Field>,
    pub(crate) salt: Option<Salt>,
    pub(crate) soft_limit: usize,
    /// Index into `fields` of each value field.
    pub(crate) value_fields: Vec<usize>,
    /// For each field, its index among the value fields (`None` for literals).
    pub(crate) value_index: Vec<Option<usize>>,
}

/// A decoded key: its bucket (if salted) and the values of its value fields.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedKey {
    /// The salt bucket, `None` for unsalted schemas.
    pub bucket: Option<u32>,
    /// Values of the value fields, in schema order.
    pub values: Vec<Value>,
}

/// An encoded key plus the warnings found while encoding it.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedKey {
    /// The stored key, salt included.
    pub key: Bytes,
    /// The bucket used, `None` for unsalted schemas.
    pub bucket: Option<u32>,
    /// Non-fatal findings (the soft length limit).
    pub warnings: Vec<KeyWarning>,
}

/// Builder for [`Schema`]. Defaults: no salt, soft limit [`DEFAULT_SOFT_LIMIT`].
#[derive(Debug, Clone, Default)]
pub struct SchemaBuilder {
    fields: Vec<Field>,
    salt: Option<Salt>,
    soft_limit: Option<usize>,
}

impl SchemaBuilder {
    /// Adds an ascending field.
    pub fn field(mut self, name: impl Into<String>, ty: FieldType) -> SchemaBuilder {
        self.fields.push(Field::new(name, ty));
        self
    }

    /// Adds a descending field.
    pub fn field_desc(mut self, name: impl Into<String>, ty: FieldType) -> SchemaBuilder {
        self.fields.push(Field::new(name, ty).with_order(Order::Desc));
        self
    }

    /// Adds a field.
    pub fn push(mut self, field: Field) -> SchemaBuilder {
        self.fields.push(field);
        self
    }

    /// Adds a separator literal (`_`, `|`, `-`); it takes no value.
    pub fn literal(mut self, bytes: impl Into<Vec<u8>>) -> SchemaBuilder {
        let name = format!("_lit{}", self.fields.len());
        self.fields.push(Field::new(name, FieldType::Literal(bytes.into())));
        self
    }

    /// Sets the salt.
    pub fn salt(mut self, salt: Salt) -> SchemaBuilder {
        self.salt = Some(salt);
        self
    }

    /// Sets the soft length limit; longer keys produce a warning, not an error.
    pub fn soft_limit(mut self, limit: usize) -> SchemaBuilder {
        self.soft_limit = Some(limit);
        self
    }

    /// Validates and builds the schema.
    pub fn build(self) -> Result<Schema, SchemaError> {
        let mut names = std::collections::HashSet::new();
        for (i, f) in self.fields.iter().enumerate() {
            f.validate()?;
            if f.ty.width() == Some(crate::field::Width::Rest) && i + 1 != self.fields.len() {
                return Err(SchemaError::InvalidField {
                    field: f.name.clone(),
                    reason: "a value running to the end of the key (`rest`) must be the last field".into(),
                });
            }
            if !names.insert(f.name.as_str()) {
                return Err(SchemaError::DuplicateField(f.name.clone()));
            }
        }
        let value_fields: Vec<usize> = (0..self.fields.len()).filter(|i| !self.fields[*i].ty.is_literal()).collect();
        if value_fields.is_empty() {
            return Err(SchemaError::Empty);
        }
        let mut salt = self.salt;
        if let Some(s) = salt.as_mut() {
            s.resolve(&self.fields)?;
        }
        let mut value_index = vec![None; self.fields.len()];
        for (vi, fi) in value_fields.iter().enumerate() {
            value_index[*fi] = Some(vi);
        }
        Ok(Schema {
            value_index,
            fields: self.fields,
            salt,
            soft_limit: self.soft_limit.unwrap_or(DEFAULT_SOFT_LIMIT),
            value_fields,
        })
    }
}

impl Schema {
    /// Starts a builder.
    pub fn builder() -> SchemaBuilder {
        SchemaBuilder::default()
    }

    /// All fields, literals included.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The value fields (literals excluded), in order.
    pub fn value_fields(&self) -> impl Iterator<Item = &Field> {
        self.value_fields.iter().filter_map(|i| self.fields.get(*i))
    }

    /// Number of value fields (values taken by [`Schema::encode`]).
    pub fn value_count(&self) -> usize {
        self.value_fields.len()
    }

    /// The salt, if any.
    pub fn salt(&self) -> Option<&Salt> {
        self.salt.as_ref()
    }

    /// The soft length limit.
    pub fn soft_limit(&self) -> usize {
        self.soft_limit
    }

    /// Number of salt buckets, `None` if unsalted.
    pub fn bucket_count(&self) -> Option<u32> {
        self.salt.as_ref().map(Salt::buckets)
    }

    /// Length of the salt prefix (0 if unsalted).
    pub fn salt_len(&self) -> usize {
        self.salt.as_ref().map_or(0, Salt::prefix_len)
    }

    /// The stored prefix of `bucket` (rendered bucket plus separator). Empty if unsalted;
    /// a bucket out of range is reduced modulo the bucket count (use
    /// [`Schema::try_salt_prefix`] to get an error instead).
    pub fn salt_prefix(&self, bucket: u32) -> Bytes {
        match &self.salt {
            None => Bytes::new(),
            Some(s) => {
                let mut out = Vec::with_capacity(s.prefix_len());
                s.render_prefix(bucket % s.buckets().max(1), &mut out);
                Bytes::from(out)
            }
        }
    }

    /// The stored prefix of `bucket`, or an error if it is out of range.
    pub fn try_salt_prefix(&self, bucket: u32) -> Result<Bytes, KeyError> {
        if let Some(n) = self.bucket_count() {
            if bucket >= n {
                return Err(KeyError::BucketOutOfRange { bucket, buckets: n });
            }
        }
        Ok(self.salt_prefix(bucket))
    }

    /// Every salt prefix, in bucket order (one empty prefix if unsalted).
    pub fn salt_prefixes(&self) -> Vec<Bytes> {
        match self.bucket_count() {
            None => vec![Bytes::new()],
            Some(n) => (0..n).map(|b| self.salt_prefix(b)).collect(),
        }
    }

    /// Warning if a key of `len` bytes is over the soft limit.
    pub fn check_length(&self, len: usize) -> Option<KeyWarning> {
        (len > self.soft_limit).then_some(KeyWarning::LongerThanSoftLimit { len, limit: self.soft_limit })
    }

    /// Longest possible key if every field is fixed-width, else `None`.
    pub fn max_key_len(&self) -> Option<usize> {
        let mut n = self.salt_len();
        for f in &self.fields {
            // Each width is bounded by the schema's checks; saturate rather than trust that.
            n = n.saturating_add(f.ty.fixed_width()?);
        }
        Some(n)
    }

    fn check_count(&self, values: &[Value]) -> Result<(), KeyError> {
        if values.len() != self.value_fields.len() {
            return Err(KeyError::WrongValueCount { expected: self.value_fields.len(), got: values.len() });
        }
        Ok(())
    }

    /// Appends the logical key (no salt) of `values` to `out`.
    pub(crate) fn encode_logical_into(&self, values: &[Value], out: &mut Vec<u8>) -> Result<(), KeyError> {
        let mut vi = 0;
        for f in &self.fields {
            if f.ty.is_literal() {
                codec::encode_field(f, None, out)?;
            } else {
                codec::encode_field(f, values.get(vi), out)?;
                vi += 1;
            }
        }
        Ok(())
    }

    /// Value of field index `fi` from a list of value-field values (possibly partial).
    pub(crate) fn value_at<'v>(&self, values: &'v [Value], fi: usize) -> Option<&'v Value> {
        let vi = (*self.value_index.get(fi)?)?;
        values.get(vi)
    }

    fn encode_inner(&self, values: &[Value], bucket: Option<u32>) -> Result<EncodedKey, KeyError> {
        self.check_count(values)?;
        let mut out = Vec::with_capacity(self.salt_len() + 32);
        let bucket = match &self.salt {
            None => {
                self.encode_logical_into(values, &mut out)?;
                None
            }
            Some(s) => {
                let salt_len = s.prefix_len();
                let early = match bucket {
                    Some(b) => Some(b),
                    None if !s.uses_logical_key() => {
                        Some(s.bucket(&self.fields, &|fi| self.value_at(values, fi), None)?)
                    }
                    None => None,
                };
                let b = match early {
                    Some(b) => {
                        self.check_bucket(b)?;
                        s.render_prefix(b, &mut out);
                        self.encode_logical_into(values, &mut out)?;
                        b
                    }
                    None => {
                        out.resize(salt_len, 0);
                        self.encode_logical_into(values, &mut out)?;
                        let b = s.bucket(&self.fields, &|_| None, out.get(salt_len..))?;
                        self.check_bucket(b)?;
                        let mut prefix = Vec::with_capacity(salt_len);
                        s.render_prefix(b, &mut prefix);
                        out[..salt_len].copy_from_slice(&prefix);
                        b
                    }
                };
                Some(b)
            }
        };
        if out.len() > HBASE_MAX_ROW_KEY_LEN {
            return Err(KeyError::KeyTooLong { len: out.len() });
        }
        let warnings = self.check_length(out.len()).into_iter().collect();
        Ok(EncodedKey { key: Bytes::from(out), bucket, warnings })
    }

    fn check_bucket(&self, bucket: u32) -> Result<(), KeyError> {
        match self.bucket_count() {
            Some(n) if bucket >= n => Err(KeyError::BucketOutOfRange { bucket, buckets: n }),
            _ => Ok(()),
        }
    }

    /// Encodes `values` (one per value field) into the full stored key, salt included.
    pub fn encode(&self, values: &[Value]) -> Result<Bytes, KeyError> {
        self.encode_inner(values, None).map(|e| e.key)
    }

    /// Like [`Schema::encode`], also returning the bucket and key-length warnings.
    pub fn encode_report(&self, values: &[Value]) -> Result<EncodedKey, KeyError> {
        self.encode_inner(values, None)
    }

    /// Encodes with an explicit bucket instead of the computed one (for random and
    /// round-robin salts chosen by the caller, or for tests). Errors if out of range.
    pub fn encode_with_bucket(&self, values: &[Value], bucket: u32) -> Result<Bytes, KeyError> {
        self.encode_inner(values, Some(bucket)).map(|e| e.key)
    }

    /// Encodes the logical key only (no salt).
    pub fn encode_logical(&self, values: &[Value]) -> Result<Bytes, KeyError> {
        self.check_count(values)?;
        let mut out = Vec::with_capacity(32);
        self.encode_logical_into(values, &mut out)?;
        Ok(Bytes::from(out))
    }

    /// Splits a stored key into its bucket and its logical key, checking the salt's form.
    pub fn split_salt<'a>(&self, stored: &'a [u8]) -> Result<(Option<u32>, &'a [u8]), KeyError> {
        let Some(s) = &self.salt else {
            return Ok((None, stored));
        };
        let w = s.rendering.width();
        let plen = s.prefix_len();
        if stored.len() < plen {
            return Err(KeyError::WrongSalt { reason: format!("key shorter than the {plen}-byte salt prefix") });
        }
        let b = s
            .parse_bucket(&stored[..w])
            .ok_or_else(|| KeyError::WrongSalt { reason: "salt bytes do not parse".into() })?;
        if b >= s.buckets() {
            return Err(KeyError::WrongSalt { reason: format!("bucket {b} out of range 0..{}", s.buckets()) });
        }
        if !s.separator.is_empty() && !stored[w..plen].starts_with(&s.separator) {
            return Err(KeyError::WrongSalt { reason: "salt separator does not match".into() });
        }
        Ok((Some(b), &stored[plen..]))
    }

    /// The stored key with the salt prefix stripped (what a merged salted scan sorts by).
    pub fn logical_key<'a>(&self, stored: &'a [u8]) -> Result<&'a [u8], KeyError> {
        self.split_salt(stored).map(|(_, l)| l)
    }

    /// Decodes the values of a logical key (no salt); errors on trailing bytes.
    pub fn decode_logical(&self, logical: &[u8]) -> Result<Vec<Value>, KeyError> {
        let mut pos = 0;
        let mut values = Vec::with_capacity(self.value_fields.len());
        for f in &self.fields {
            if let Some(v) = codec::decode_field(f, logical, &mut pos)? {
                values.push(v);
            }
        }
        if pos != logical.len() {
            return Err(KeyError::TrailingBytes { count: logical.len() - pos });
        }
        Ok(values)
    }

    /// Decodes a stored key into its bucket and values. For deterministic salts the
    /// bucket is recomputed from the values and must match ([`KeyError::WrongSalt`]).
    pub fn decode(&self, stored: &[u8]) -> Result<DecodedKey, KeyError> {
        if stored.len() > HBASE_MAX_ROW_KEY_LEN {
            return Err(KeyError::KeyTooLong { len: stored.len() });
        }
        let (bucket, logical) = self.split_salt(stored)?;
        let values = self.decode_logical(logical)?;
        if let (Some(s), Some(b)) = (&self.salt, bucket) {
            if s.is_deterministic() {
                let want = s.bucket(&self.fields, &|fi| self.value_at(&values, fi), Some(logical))?;
                if want != b {
                    return Err(KeyError::WrongSalt {
                        reason: format!("key has bucket {b} but its fields give {want}"),
                    });
                }
            }
        }
        Ok(DecodedKey { bucket, values })
    }
}
