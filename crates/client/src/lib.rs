//! Basalt: an async client for Apache HBase over the Thrift2 gateway.
