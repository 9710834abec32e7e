//! `Swoole\Http\Server`: an internal subclass of `Swoole\Server`.
//!
//! It is registered after `Swoole\Server` (in `mod.rs`'s post-startup) with
//! the raw Zend API rather than `#[php_class]`, so it inherits the parent's
//! `create_object` and its objects are `Server` objects: every `Server`
//! method works on them unchanged. See docs/internals.md, "Class hierarchy".

use std::sync::OnceLock;

use ext_php_rs::zend::ClassEntry;

use super::server::server_ce;
use super::CeRef;

static HTTP_SERVER: OnceLock<CeRef> = OnceLock::new();

/// The class entry of `Swoole\Http\Server` (`Swoole\Server` before startup).
pub fn http_server_ce() -> &'static ClassEntry {
    HTTP_SERVER.get().map_or_else(server_ce, |c| c.0)
}

/// Registers the class and its legacy alias; called once from module startup.
pub fn register_classes() -> ext_php_rs::error::Result<()> {
    let ce = super::internal_subclass("Swoole\\Http\\Server", (server_ce, "Swoole\\Server"))?;
    let _ = HTTP_SERVER.set(CeRef(ce));
    super::allow_dynamic_properties(ce);
    super::class_alias("swoole_http_server", ce);
    Ok(())
}
