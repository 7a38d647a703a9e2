//! What a call does, as one enum: the transports, the retry loop, the metrics and the
//! errors all name operations with it (no decision matches on a string).

/// The operation an attempt was making: the label of its span, its errors and (later)
/// its metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// One row.
    Get,
    /// Several rows in one call (`get_many`, and coalesced gets).
    MultiGet,
    /// Whether a row exists.
    Exists,
    /// Whether several rows exist.
    ExistsMany,
    /// One put.
    Put,
    /// A chunk of puts.
    PutMany,
    /// One delete.
    Delete,
    /// A chunk of deletes.
    DeleteMany,
    /// Puts and deletes applied atomically to one row.
    MutateRow,
    /// A put if a cell matches.
    CheckAndPut,
    /// A delete if a cell matches.
    CheckAndDelete,
    /// Row mutations if a cell compares as asked.
    CheckAndMutate,
    /// Counters.
    Increment,
    /// Appends to cells.
    Append,
    /// Gets, puts, deletes, increments and appends in one call (a mixed batch).
    Batch,
    /// Opening a scanner (with its first page).
    OpenScanner,
    /// A page of an open scanner.
    NextPage,
    /// Closing a scanner.
    CloseScanner,
    /// A page read by a scan opened and closed in the same call.
    StatelessPage,
    /// The regions of a table.
    RegionLocations,
    /// An administrative call, by name.
    Admin(&'static str),
    /// Getting a connection (or a slot of the pool) before the request.
    Connect,
}

impl Operation {
    /// Whether the operation changes data (a failure may then leave it applied).
    pub fn writes(self) -> bool {
        match self {
            Operation::Put
            | Operation::PutMany
            | Operation::Delete
            | Operation::DeleteMany
            | Operation::MutateRow
            | Operation::CheckAndPut
            | Operation::CheckAndDelete
            | Operation::CheckAndMutate
            | Operation::Increment
            | Operation::Append
            | Operation::Batch => true,
            Operation::Get
            | Operation::MultiGet
            | Operation::Exists
            | Operation::ExistsMany
            | Operation::OpenScanner
            | Operation::NextPage
            | Operation::CloseScanner
            | Operation::StatelessPage
            | Operation::RegionLocations
            | Operation::Admin(_)
            | Operation::Connect => false,
        }
    }

    /// The operation's name, as spans and error messages show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::MultiGet => "get_many",
            Operation::Exists => "exists",
            Operation::ExistsMany => "exists_many",
            Operation::Put => "put",
            Operation::PutMany => "put_many",
            Operation::Delete => "delete",
            Operation::DeleteMany => "delete_many",
            Operation::MutateRow => "mutate_row",
            Operation::CheckAndPut => "check_and_put",
            Operation::CheckAndDelete => "check_and_delete",
            Operation::CheckAndMutate => "check_and_mutate",
            Operation::Increment => "increment",
            Operation::Append => "append",
            Operation::Batch => "batch",
            Operation::OpenScanner => "open_scanner",
            Operation::NextPage => "get_scanner_rows",
            Operation::CloseScanner => "close_scanner",
            Operation::StatelessPage => "get_scanner_results",
            Operation::RegionLocations => "region_locations",
            Operation::Admin(name) => name,
            Operation::Connect => "connect",
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
