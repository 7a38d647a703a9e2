//! Starts a local HBase (or uses `BASALT_THRIFT_ADDR`), writes one row through the
//! Thrift2 gateway, reads it back and cleans up.
//!
//! ```text
//! cargo run -p basalt-thrift --example quickstart
//! ```

use basalt_testkit::{HBase, LaunchOptions};
use basalt_thrift::hbase::{TColumnFamilyDescriptor, TColumnValue, TGet, TPut, TTableDescriptor, TTableName};
use basalt_thrift::{Connection, ConnectionOptions, Framing, Protocol};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut hbase = HBase::from_env_or_start(&LaunchOptions::default())?;
    println!("HBase Thrift2 gateway at {}", hbase.addr());
    let options = ConnectionOptions {
        framing: if hbase.framed() { Framing::Framed } else { Framing::Buffered },
        protocol: if hbase.compact() { Protocol::Compact } else { Protocol::Binary },
        ..ConnectionOptions::default()
    };
    let mut conn = Connection::connect(hbase.addr(), options).await?;

    let table = TTableName::new(None, b"basalt_quickstart".to_vec());
    if conn.table_exists(table.clone()).await? {
        conn.disable_table(table.clone()).await?;
        conn.delete_table(table.clone()).await?;
    }
    let family = TColumnFamilyDescriptor::new(
        b"d".to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    );
    conn.create_table(TTableDescriptor::new(table.clone(), vec![family], None, None), Vec::new()).await?;

    let cell = TColumnValue::new(b"d".to_vec(), b"greeting".to_vec(), b"hello, HBase".to_vec(), None, None, None);
    conn.put(b"basalt_quickstart".to_vec(), TPut::new(b"row-1".to_vec(), vec![cell], None, None, None, None)).await?;
    let get = TGet::new(
        b"row-1".to_vec(),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    );
    let row = conn.get(b"basalt_quickstart".to_vec(), get).await?;
    let value = row.column_values.first().map(|c| String::from_utf8_lossy(&c.value).into_owned());
    println!("read back row-1: {}", value.as_deref().unwrap_or("<missing>"));
    if value.as_deref() != Some("hello, HBase") {
        return Err("the row read back differs from the row written".into());
    }

    conn.disable_table(table.clone()).await?;
    conn.delete_table(table).await?;
    hbase.stop()?;
    println!("done: wrote and read one row, stopped the local HBase");
    Ok(())
}
