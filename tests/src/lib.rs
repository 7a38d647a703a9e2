//! Integration tests live in `hbase/`; this library is empty.
