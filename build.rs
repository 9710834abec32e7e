//! Lets the unit tests inside src/php link: they run as a plain executable,
//! where the Zend symbols the extension takes from the PHP binary at load
//! time do not exist. Those tests touch only pure Rust (no Zend call), so the
//! symbols may stay unresolved (a call would fault, and no test makes one).
//! A shared object (the extension itself) allows undefined symbols anyway,
//! so the flag changes nothing there.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_PHP").is_some() {
        println!("cargo:rustc-link-arg=-Wl,--unresolved-symbols=ignore-all");
    }
    // The functions a worker runs, first and together in .text (see
    // tools/hot-order.sh): the kernel maps code 64 KiB around each page a
    // process touches, so scattered hot code costs every worker megabytes
    // of RSS. lld ignores names it does not find (another build profile
    // mangles other hashes). Only where rustc links with its own lld
    // (x86_64 Linux since Rust 1.90); GNU ld has no such option.
    println!("cargo:rerun-if-changed=tools/hot-symbols.txt");
    // (Read when the script runs, not baked in when it is compiled: another
    // checkout sharing the target directory reuses the compiled script.)
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let order = std::path::Path::new(&dir).join("tools/hot-symbols.txt");
    if order.exists() && links_with_lld() {
        let order = order.display();
        println!("cargo:rustc-cdylib-link-arg=-Wl,--symbol-ordering-file={order}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether this rustc links x86_64 Linux code with its bundled lld (the
/// default from Rust 1.90 on).
fn links_with_lld() -> bool {
    if std::env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu") {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = std::process::Command::new(rustc).arg("--version").output() else {
        return false;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
