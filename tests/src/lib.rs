//! Support for Basalt's workspace tests: the integration tests against HBase live in
//! `hbase/`, the layout tests of the workspace's sources in `layout/`.

pub mod import_graph;
