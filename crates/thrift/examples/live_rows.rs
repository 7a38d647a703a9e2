//! Checks the zero-copy row calls against the generated ones on a real HBase, in all
//! four transport/protocol combinations: `get_row` vs `get`, and `get_multiple`,
//! `get_scanner_rows`, `get_scanner_results` (zero-copy) vs the same requests decoded
//! by the generated code (`Connection::call`) must return the same rows. Starts a local HBase (or uses
//! `BASALT_THRIFT_ADDR`) and, with a launched HBase, three extra gateways.
//!
//! ```text
//! cargo run -p basalt-thrift --example live_rows
//! ```

use basalt_testkit::{HBase, LaunchOptions};
use basalt_thrift::hbase::{
    calls, TColumnFamilyDescriptor, TColumnValue, TGet, TPut, TResult, TScan, TTableDescriptor, TTableName,
};
use basalt_thrift::{Connection, ConnectionOptions, Framing, Protocol, RowData};
use bytes::Bytes;

const TABLE: &[u8] = b"basalt_live_rows";
const ROWS: usize = 1200;

type Failure = Box<dyn std::error::Error>;

fn family() -> TColumnFamilyDescriptor {
    let mut d = TColumnFamilyDescriptor::new(
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
    d.max_versions = Some(3);
    d
}

fn tget(row: Vec<u8>) -> TGet {
    TGet::new(row, None, None, None, None, None, None, None, None, None, None, None, None, None, None)
}

fn tscan(batch: Option<i32>) -> TScan {
    let mut scan = TScan::new(
        None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
    );
    scan.caching = Some(100);
    scan.batch_size = batch;
    scan
}

fn owned(results: &[TResult]) -> Vec<RowData> {
    results
        .iter()
        .map(|r| RowData {
            row: Bytes::from(r.row.clone().unwrap_or_default()),
            cells: r
                .column_values
                .iter()
                .map(|c| basalt_thrift::CellData {
                    family: Bytes::from(c.family.clone()),
                    qualifier: Bytes::from(c.qualifier.clone()),
                    value: Bytes::from(c.value.clone()),
                    timestamp: c.timestamp,
                    tags: c.tags.clone().map(Bytes::from),
                    cell_type: c.type_,
                })
                .collect(),
            partial: r.partial.unwrap_or(false),
            stale: r.stale.unwrap_or(false),
        })
        .collect()
}

fn check(what: &str, zero_copy: Vec<RowData>, generated: &[TResult]) -> Result<usize, Failure> {
    if zero_copy != owned(generated) {
        return Err(format!("{what}: the zero-copy rows differ from the generated ones").into());
    }
    Ok(zero_copy.len())
}

async fn compare(addr: &str, framing: Framing, protocol: Protocol) -> Result<(), Failure> {
    let options = ConnectionOptions { framing, protocol, ..ConnectionOptions::default() };
    let mut conn = Connection::connect(addr, options).await?;
    let mut checked = 0;
    for i in [0usize, 7, 600, ROWS - 1, ROWS + 5] {
        let key = format!("row-{i:05}").into_bytes();
        let generated = conn.get(TABLE.to_vec(), tget(key.clone())).await?;
        let zero_copy = conn.get_row(TABLE.to_vec(), tget(key)).await?;
        checked += check("get", vec![zero_copy], &[generated])?;
    }
    let gets: Vec<TGet> = (0..ROWS + 10).step_by(3).map(|i| tget(format!("row-{i:05}").into_bytes())).collect();
    let generated = conn.call(&calls::GetMultiple::new(TABLE.to_vec(), gets.clone())).await?;
    checked += check("getMultiple", conn.get_multiple(TABLE.to_vec(), gets).await?.to_rows(), &generated)?;
    for batch in [None, Some(2)] {
        let a = conn.open_scanner(TABLE.to_vec(), tscan(batch)).await?;
        let b = conn.open_scanner(TABLE.to_vec(), tscan(batch)).await?;
        loop {
            let generated = conn.call(&calls::GetScannerRows::new(a, 250)).await?;
            let zero_copy = conn.get_scanner_rows(b, 250).await?;
            checked += check("getScannerRows", zero_copy.to_rows(), &generated)?;
            if generated.is_empty() {
                break;
            }
        }
        conn.close_scanner(a).await?;
        conn.close_scanner(b).await?;
    }
    let generated = conn.call(&calls::GetScannerResults::new(TABLE.to_vec(), tscan(None), 500)).await?;
    let zero_copy = conn.get_scanner_results(TABLE.to_vec(), tscan(None), 500).await?;
    checked += check("getScannerResults", zero_copy.to_rows(), &generated)?;
    match conn.get_scanner_rows(987_654, 10).await {
        Err(basalt_thrift::CallError::Reply(basalt_thrift::ReplyError::IllegalArgument { .. })) => {}
        other => return Err(format!("an unknown scanner id gave {other:?}").into()),
    }
    println!("{framing:?}/{protocol:?}: {checked} rows identical through both decoders");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let mut hbase = HBase::from_env_or_start(&LaunchOptions::default())?;
    let main_mode = (
        if hbase.framed() { Framing::Framed } else { Framing::Buffered },
        if hbase.compact() { Protocol::Compact } else { Protocol::Binary },
    );
    let options = ConnectionOptions { framing: main_mode.0, protocol: main_mode.1, ..ConnectionOptions::default() };
    let mut conn = Connection::connect(hbase.addr(), options.clone()).await?;
    let table = TTableName::new(None, TABLE.to_vec());
    if conn.table_exists(table.clone()).await? {
        conn.disable_table(table.clone()).await?;
        conn.delete_table(table.clone()).await?;
    }
    conn.create_table(TTableDescriptor::new(table.clone(), vec![family()], None, None), Vec::new()).await?;
    let puts: Vec<TPut> = (0..ROWS)
        .map(|i| {
            let cells = (0..1 + i % 5)
                .map(|q| {
                    let value = vec![b'a' + (i % 26) as u8; (i * 31 + q * 7) % 2000];
                    TColumnValue::new(b"d".to_vec(), format!("q{q}").into_bytes(), value, None, None, None)
                })
                .collect();
            TPut::new(format!("row-{i:05}").into_bytes(), cells, None, None, None, None)
        })
        .collect();
    for chunk in puts.chunks(300) {
        conn.put_multiple(TABLE.to_vec(), chunk.to_vec()).await?;
    }

    compare(hbase.addr(), main_mode.0, main_mode.1).await?;
    if hbase.run_dir().is_some() {
        let launcher = hbase.gateways()?;
        let modes = [(false, false), (false, true), (true, false), (true, true)];
        let handles: Vec<_> = modes
            .into_iter()
            .filter(|&(f, c)| (f, c) != (main_mode.0 == Framing::Framed, main_mode.1 == Protocol::Compact))
            .map(|(f, c)| {
                let launcher = launcher.clone();
                std::thread::spawn(move || launcher.start(f, c).map(|g| (f, c, g)))
            })
            .collect();
        let mut gateways = Vec::new();
        for handle in handles {
            gateways.push(handle.join().map_err(|_| "gateway start panicked")??);
        }
        for (framed, compact, gateway) in &gateways {
            let framing = if *framed { Framing::Framed } else { Framing::Buffered };
            let protocol = if *compact { Protocol::Compact } else { Protocol::Binary };
            compare(gateway.addr(), framing, protocol).await?;
        }
        for (_, _, mut gateway) in gateways {
            gateway.stop()?;
        }
    } else {
        println!("(an external gateway: only its own transport was checked)");
    }
    // The first connection sat idle while gateways started: HBase may have closed it.
    let mut conn = Connection::connect(hbase.addr(), options).await?;
    conn.disable_table(table.clone()).await?;
    conn.delete_table(table).await?;
    hbase.stop()?;
    println!("done");
    Ok(())
}
