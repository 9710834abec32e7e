//! `Swoole\Http\Server`: an internal subclass of `Swoole\Server`.
//!
//! It is registered after `Swoole\Server` (in `mod.rs`'s post-startup) with
//! the raw Zend API rather than `#[php_class]`, so it inherits the parent's
//! `create_object` and its objects are `Server` objects: every `Server`
//! method works on them unchanged. See docs/internals.md, "Class hierarchy".

use std::sync::OnceLock;

use ext_php_rs::builders::ClassBuilder;
use ext_php_rs::zend::ClassEntry;

use super::server::server_ce;

struct CePtr(&'static ClassEntry);
// SAFETY: a class entry registered at module startup is immutable and lives
// for the whole process; we only ever read through it.
unsafe impl Send for CePtr {}
// SAFETY: as above.
unsafe impl Sync for CePtr {}

static HTTP_SERVER: OnceLock<CePtr> = OnceLock::new();

/// The class entry of `Swoole\Http\Server`. Panics before module startup.
pub fn http_server_ce() -> &'static ClassEntry {
    match HTTP_SERVER.get() {
        Some(p) => p.0,
        None => panic!("Swoole\\Http\\Server is not registered"),
    }
}

/// Registers the class; called once from module startup, after `Swoole\Server`.
pub fn register_subclass() -> ext_php_rs::error::Result<()> {
    ClassBuilder::new("Swoole\\Http\\Server")
        .extends((server_ce, "Swoole\\Server"))
        .registration(|ce, _| {
            let _ = HTTP_SERVER.set(CePtr(ce));
        })
        .register()?;
    super::allow_dynamic_properties(http_server_ce());
    super::class_alias("swoole_http_server", http_server_ce());
    Ok(())
}
