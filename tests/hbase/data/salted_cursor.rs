//! Salted-scan cursors against the real server: a valid cursor resumes exactly (forward
//! and reverse, page after page through its text form), and every altered, foreign or
//! malformed cursor is refused with a typed error before a row is read.

use std::collections::BTreeSet;

use basalt::{Bytes, CursorError, CursorKey, Error, InvalidInput, SaltedCursor, SaltedRow, SaltedTable};
use basalt_rowkey::{FieldType, HashAlgo, Query, Salt, Schema, Value, Width};
use futures::TryStreamExt;

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![cursors_resume_exactly_page_after_page, altered_and_foreign_cursors_are_refused]
}

const SECRET: &[u8] = b"salted-cursor integration test secret";

fn schema() -> Schema {
    Schema::builder()
        .field("user", FieldType::Str(Width::Variable))
        .field("seq", FieldType::U32)
        .salt(Salt::hash(HashAlgo::Murmur3 { seed: 0 }, &["user"], 16))
        .build()
        .expect("valid schema")
}

/// A 16-bucket table of `users` x `per_user` rows; returns it (with the test's cursor
/// key) and the sorted logical keys.
async fn filled(env: &Env, users: u32, per_user: u32) -> Result<(SaltedTable, Vec<Bytes>), Error> {
    let client = env.client();
    let name = env.unique("salted_cursor");
    let desc = basalt::TableDescriptor::new(name.clone()).family(basalt::ColumnFamily::new("d"));
    let splits: Vec<Bytes> = (1..16u8).map(|b| Bytes::from(vec![b])).collect();
    client.admin().create_table(&desc, &splits).await?;
    let salted = client.table(&name)?.salted(schema()).cursor_key(CursorKey::new(SECRET)?);
    let mut expected = BTreeSet::new();
    let mut puts = Vec::new();
    for user in 0..users {
        for seq in 0..per_user {
            let values = [Value::str(format!("u{user:04}")), Value::UInt(u64::from(seq * 7))];
            expected.insert(salted.schema().encode_logical(&values)?);
            puts.push(salted.new_put(&values)?.cell("d", "v", "x"));
        }
    }
    salted.table().put_many(puts).await?;
    Ok((salted, expected.into_iter().collect()))
}

fn logical(rows: &[SaltedRow]) -> Vec<Bytes> {
    rows.iter().map(|r| r.logical_key_bytes()).collect()
}

/// The cursor error inside a refused start, or a description of what happened instead.
fn cursor_error(result: Result<basalt::SaltedStream, Error>) -> Result<CursorError, String> {
    match result {
        Err(Error::InvalidInput(InvalidInput::Cursor(e))) => Ok(e),
        Err(e) => Err(format!("another error: {e}")),
        Ok(_) => Err("the cursor was accepted".into()),
    }
}

async fn cursors_resume_exactly_page_after_page(env: Env) -> TestResult {
    let (salted, expected) = filled(&env, 300, 20).await?;
    for reverse in [false, true] {
        let mut want = expected.clone();
        if reverse {
            want.reverse();
        }
        let mut got = Vec::new();
        let mut token: Option<String> = None;
        let mut pages = 0;
        loop {
            // Each page: a fresh table handle (as another request of a service would
            // make) with the same configured key, resumed from the previous page's text.
            let client = env.client();
            let table = client.table(salted.table().name())?.salted(schema()).cursor_key(CursorKey::new(SECRET)?);
            let mut scan = table.scan(Query::new().reverse(reverse)).limit(777);
            if let Some(t) = &token {
                scan = scan.resume(SaltedCursor::from_token(t)?);
            }
            let mut stream = scan.stream().await?;
            let mut page = Vec::new();
            while let Some(row) = futures::StreamExt::next(&mut stream).await {
                page.push(row?);
            }
            if page.is_empty() {
                break;
            }
            pages += 1;
            assert!(page.len() <= 777);
            got.extend(logical(&page));
            token = Some(stream.cursor().to_token());
            assert!(pages < 100, "paging does not end");
        }
        assert_eq!(got.len(), want.len(), "reverse={reverse}: rows over {pages} pages");
        assert!(got == want, "reverse={reverse}: the pages together equal the whole result, in order");
        assert_eq!(pages, want.len().div_ceil(777));
    }

    // One bucket (a fixed user), with the per-process default key.
    let table = env.client().table(salted.table().name())?.salted(schema());
    let user = Query::new().fixed(Value::str("u0042"));
    let first: Vec<SaltedRow> = table.scan(user.clone()).limit(5).stream().await?.try_collect().await?;
    let mut stream = table.scan(user.clone()).limit(5).stream().await?;
    while futures::StreamExt::next(&mut stream).await.transpose()?.is_some() {}
    let token = stream.cursor().to_token();
    let rest: Vec<SaltedRow> =
        table.scan(user.clone()).resume(SaltedCursor::from_token(&token)?).stream().await?.try_collect().await?;
    assert_eq!(first.len() + rest.len(), 20);
    let mut all = logical(&first);
    all.extend(logical(&rest));
    let prefix = &salted.schema().encode_logical(&[Value::str("u0042"), Value::UInt(0)])?;
    let want: Vec<Bytes> = expected.iter().filter(|k| k.starts_with(&prefix[..prefix.len() - 4])).cloned().collect();
    assert_eq!(all, want);
    salted.table().client().admin().delete_table(salted.table().name()).await?;
    Ok(())
}

async fn altered_and_foreign_cursors_are_refused(env: Env) -> TestResult {
    let (salted, _) = filled(&env, 300, 10).await?;
    let user = Query::new().fixed(Value::str("u0150"));
    let plan = salted.scan(user.clone()).plan()?;
    assert_eq!(plan.ranges.len(), 1);
    let mut page = salted.scan(user.clone()).limit(3).stream().await?;
    while futures::StreamExt::next(&mut page).await.transpose()?.is_some() {}
    let token = page.cursor().to_token();
    drop(page);
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 4, "v2, fingerprint, tag, one position: {token}");
    let resume = |text: &str| {
        let salted = salted.clone();
        let user = user.clone();
        let text = text.to_owned();
        async move {
            let cursor = SaltedCursor::from_token(&text)?;
            Ok::<_, Error>(salted.scan(user).resume(cursor).stream().await)
        }
    };

    // The hand edit: the position moved below the query's range (to the first
    // key of the bucket, another user's rows), fingerprint and tag kept.
    let bucket_start = &plan.ranges[0].start[..1];
    let below = format!("{}.{}.{}.{}", parts[0], parts[1], parts[2], hex(&[bucket_start, b"\x00"].concat()));
    assert_eq!(cursor_error(resume(&below).await?)?, CursorError::Signature, "moved below the range");

    // One hex digit of the position flipped (every digit, one at a time).
    let at = parts[0].len() + parts[1].len() + parts[2].len() + 3;
    for i in at..token.len() {
        let mut edited = token.clone().into_bytes();
        edited[i] = if edited[i] == b'0' { b'1' } else { b'0' };
        let edited = String::from_utf8(edited)?;
        assert_eq!(cursor_error(resume(&edited).await?)?, CursorError::Signature, "{edited}");
    }
    // A digit of the tag flipped; a digit of the fingerprint flipped.
    let mut tag = token.clone().into_bytes();
    // (Another hex digit: flipping a bit of 'a' or 'f' would give a non-hex character.)
    let i = parts[0].len() + parts[1].len() + 2;
    tag[i] = if tag[i] == b'0' { b'1' } else { b'0' };
    assert_eq!(cursor_error(resume(&String::from_utf8(tag)?).await?)?, CursorError::Signature);
    let mut fingerprint = token.clone().into_bytes();
    fingerprint[3] = if fingerprint[3] == b'0' { b'1' } else { b'0' };
    assert_eq!(cursor_error(resume(&String::from_utf8(fingerprint)?).await?)?, CursorError::OtherQuery);

    // Truncated anywhere: unparsable (typed), or refused at the start.
    for end in 0..token.len() {
        match resume(&token[..end]).await {
            Err(Error::InvalidInput(InvalidInput::Cursor(_))) => {}
            Err(e) => return Err(format!("truncated at {end}: {e}").into()),
            Ok(result) => {
                cursor_error(result).map_err(|e| format!("truncated at {end}: {e}"))?;
            }
        }
    }

    // Multi-byte UTF-8 where hex belongs (this panicked before: "not a char boundary").
    for hostile in [format!("{}.é", &token[..token.rfind('.').unwrap_or(0)]), "v2.é".into(), "é".into(), "v1.é0".into()]
    {
        match SaltedCursor::from_token(&hostile) {
            Err(Error::InvalidInput(InvalidInput::Cursor(_))) => {}
            other => return Err(format!("{hostile:?}: {other:?}").into()),
        }
    }

    // Another key: a process with the default (random) key, or a service with another
    // configured secret, refuses the cursor.
    let default_key = env.client().table(salted.table().name())?.salted(schema());
    let cursor = SaltedCursor::from_token(&token)?;
    assert_eq!(
        cursor_error(default_key.scan(user.clone()).resume(cursor.clone()).stream().await)?,
        CursorError::Signature
    );
    let other_key = default_key.clone().cursor_key(CursorKey::new(b"another secret, also long enough")?);
    assert_eq!(
        cursor_error(other_key.scan(user.clone()).resume(cursor.clone()).stream().await)?,
        CursorError::Signature
    );

    // Another query (other user, reversed, no fixed user) and another table.
    for query in [Query::new().fixed(Value::str("u0151")), user.clone().reverse(true), Query::new()] {
        assert_eq!(cursor_error(salted.scan(query).resume(cursor.clone()).stream().await)?, CursorError::OtherQuery);
    }
    let (other_table, _) = filled(&env, 10, 1).await?;
    assert_eq!(
        cursor_error(other_table.scan(user.clone()).resume(cursor.clone()).stream().await)?,
        CursorError::OtherQuery
    );

    // The untouched token still resumes: 7 more rows of this user only.
    let rest: Vec<SaltedRow> = salted.scan(user.clone()).resume(cursor).stream().await?.try_collect().await?;
    assert_eq!(rest.len(), 7);
    let prefix = salted.schema().encode_logical(&[Value::str("u0150"), Value::UInt(0)])?;
    assert!(rest.iter().all(|r| r.logical_key().starts_with(&prefix[..prefix.len() - 4])));
    for table in [&salted, &other_table] {
        table.table().client().admin().delete_table(table.table().name()).await?;
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
