//! The client's tuning constants: defaults of the builder's and the scan's options, and
//! the limits pages and batches are sized by.
//!
//! | constant | what it sets | where it can be changed |
//! |---|---|---|
//! | [`DEFAULT_RETRY_BUDGET`] | how long the retries of one call (or a scan's recovery) may go on | [`ClientBuilder::retry_budget`](crate::ClientBuilder::retry_budget) |
//! | [`DEFAULT_GETS_IN_FLIGHT`] | single-row gets sent at once before later ones are coalesced (gateway) | [`ClientBuilder::gets_in_flight`](crate::ClientBuilder::gets_in_flight) |
//! | [`DEFAULT_NATIVE_GETS_IN_FLIGHT`] | the same over native RPC, per region server | [`ClientBuilder::gets_in_flight`](crate::ClientBuilder::gets_in_flight) |
//! | [`DEFAULT_BATCH_ROWS`] | rows per call of the batched reads and writes | [`Table::with_batch_rows`](crate::Table::with_batch_rows) |
//! | [`FIRST_PAGE_ROWS`] | rows of a scan's first page | [`Scan::caching`](crate::Scan::caching) |
//! | [`PAGE_GROWTH`] | how much each page grows over the previous one | [`Scan::caching`](crate::Scan::caching) |
//! | [`PAGE_TARGET_BYTES`] | bytes a plain scan's page grows to (gateway) | [`Scan::caching`](crate::Scan::caching), [`ClientBuilder::max_response_bytes`](crate::ClientBuilder::max_response_bytes) |
//! | [`NATIVE_PAGE_TARGET_BYTES`] | the same over native RPC | [`Scan::caching`](crate::Scan::caching) |
//! | [`MAX_PAGE_ROWS`] | most rows of one page | [`Scan::caching`](crate::Scan::caching) |
//! | [`PARALLEL_PAGES_AHEAD`] | pages each piece of a parallel scan holds ahead of the consumer | fixed |
//! | [`PARALLEL_PAGE_TARGET_BYTES`] | bytes a parallel piece's page grows to | [`Scan::caching`](crate::Scan::caching) |
//! | [`PARALLEL_FIRST_PAGE_ROWS`] | rows of the first page of every parallel piece but the first | [`Scan::caching`](crate::Scan::caching) |
//! | [`MAX_ROW_KEY_LEN`] | HBase's limit on a row key's length | fixed by HBase |

pub use crate::client::{DEFAULT_GETS_IN_FLIGHT, DEFAULT_NATIVE_GETS_IN_FLIGHT, DEFAULT_RETRY_BUDGET};
pub use crate::scan::{FIRST_PAGE_ROWS, MAX_PAGE_ROWS, NATIVE_PAGE_TARGET_BYTES, PAGE_GROWTH, PAGE_TARGET_BYTES};
pub use crate::scan::{PARALLEL_FIRST_PAGE_ROWS, PARALLEL_PAGES_AHEAD, PARALLEL_PAGE_TARGET_BYTES};
pub use crate::table::DEFAULT_BATCH_ROWS;
pub use crate::validate::MAX_ROW_KEY_LEN;
