//! One async method on [`Connection`] per THBaseService call, from the protocol crate's
//! table of calls: the calls whose replies carry rows return a zero-copy [`RowBatch`],
//! the others the generated value. Any request type can also be sent as it is with
//! [`Connection::call`] (generated decoding) or [`Connection::call_rows`].

use basalt_thrift_protocol::hbase::calls::{self, DeleteRows, PutRows};
use basalt_thrift_protocol::hbase::*;
use basalt_thrift_protocol::{RowBatch, RowData};

use crate::{CallError, Connection};

macro_rules! connection_methods {
    ($(
        $(#[$doc:meta])*
        $kind:ident $name:ident = $ty:ident $wire:literal ($($arg:ident: $arg_ty:ty),*) -> $ret:ty, $args:ident, $result:ident;
    )*) => {
        impl Connection {
            $(connection_methods!(@method $kind $(#[$doc])* $name $ty ($($arg: $arg_ty),*) -> $ret);)*
        }
    };
    (@method generated $(#[$doc:meta])* $name:ident $ty:ident ($($arg:ident: $arg_ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub async fn $name(&mut self, $($arg: $arg_ty),*) -> Result<$ret, CallError> {
            self.call(&calls::$ty::new($($arg),*)).await
        }
    };
    (@method rows $(#[$doc:meta])* $name:ident $ty:ident ($($arg:ident: $arg_ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        ///
        /// The rows come as a [`RowBatch`]: keys, families, qualifiers and values are
        /// slices of the received reply (no allocation per cell). For generated
        /// `TResult`s, send the request with [`Connection::call`].
        pub async fn $name(&mut self, $($arg: $arg_ty),*) -> Result<RowBatch, CallError> {
            self.call_rows(&calls::$ty::new($($arg),*)).await
        }
    };
}

basalt_thrift_protocol::for_each_call!(connection_methods);

/// The calls that borrow what they send, and `get` as zero-copy rows.
impl Connection {
    /// `get`: one row, owned; empty (no key, no cells) when the row does not exist.
    pub async fn get_row(&mut self, table: Vec<u8>, tget: TGet) -> Result<RowData, CallError> {
        let batch = self.call_rows(&calls::Get::new(table, tget)).await?;
        Ok(batch.row(0).map(|row| row.to_row_data()).unwrap_or_default())
    }

    /// `get` returning the [`RowBatch`] of its one row (for callers that keep the
    /// compact form).
    pub async fn get_row_batch(&mut self, table: Vec<u8>, tget: TGet) -> Result<RowBatch, CallError> {
        self.call_rows(&calls::Get::new(table, tget)).await
    }

    /// `putMultiple` of borrowed rows: nothing is copied but into the request buffer,
    /// so a retry costs no more than the first attempt. (No attributes or cell
    /// visibility: use [`Connection::put_multiple`] for those.)
    pub async fn put_rows<P: PutSource + Sync>(&mut self, table: &[u8], puts: &[P]) -> Result<(), CallError> {
        self.call(&PutRows { table, puts }).await
    }

    /// `deleteMultiple` of borrowed deletes; returns those HBase could not apply
    /// (always empty in HBase 2).
    pub async fn delete_rows(&mut self, table: &[u8], deletes: &[TDelete]) -> Result<Vec<TDelete>, CallError> {
        self.call(&DeleteRows { table, deletes }).await
    }
}
