//! HTTP/1.1 on hyper: one connection task per client inside a worker.

pub mod coro;

pub mod answer;
pub mod body;
pub mod conn;
pub mod deadline;
mod exchange;
mod fast;
pub mod form;
pub mod gate;
pub mod h2ctl;
pub mod header_timer;
pub mod mime;
pub mod parse;
pub mod reqbody;
pub mod request;
pub mod response;
mod scan;
pub mod static_files;
mod stream;

pub use request::HttpRequest;
pub use response::{Coding, RespContext, RespError, Responder};
