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
}
