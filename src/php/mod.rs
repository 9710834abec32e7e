//! The PHP binding layer: the `swoole` module, one file per PHP class, each
//! with the same `register(module)` shape.
//!
//! This is the only layer that touches Zend values. Calls into PHP user code
//! go through `boundary`, which decides what happens to exceptions, `exit()`,
//! fatal errors and panics.

pub mod arginfo;
pub mod args;
pub mod atomic;
pub mod autoload;
pub mod boundary;
pub mod callbacks;
pub mod channel;
pub mod client;
pub mod client_coro;
pub mod constants;
pub mod coroutine;
pub mod errors;
pub mod event;
pub mod exception;
pub mod exit;
pub mod ffi;
pub mod functions;
pub mod hook_curl;
pub mod hook_file;
pub mod hook_net;
pub mod hook_proc;
pub mod hook_select;
pub mod hook_sleep;
pub mod hook_sockets;
pub mod hook_stream;
pub mod http2_client_coro;
pub mod http_client_coro;
pub mod http_cookie;
pub mod http_request;
pub mod http_response;
pub mod http_server;
pub mod http_server_coro;
pub mod lock;
pub mod lock_coro;
pub mod process;
pub mod process_pool;
pub mod runtime;
pub mod server;
pub mod server_command;
pub mod server_port;
pub mod server_task;
pub mod settings;
pub mod socket_coro;
pub mod system_coro;
pub mod table;
pub mod timer;
pub mod waitgroup;
pub mod watchdog;
pub mod websocket_frame;
pub mod websocket_server;
pub mod zval;

use std::ffi::CString;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use ext_php_rs::builders::ModuleBuilder;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::ffi::zend_class_entry;
use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::internal::{
    ext_php_rs_startup, startup_guard, ModuleStartupMutex, MODULE_STARTUP_INIT,
};
use ext_php_rs::zend::{
    ClassEntry, ExecutorGlobals, IniEntryDef, IniEntryDefs, ModuleEntry, StaticModuleEntry,
};
use ext_php_rs::{info_table_end, info_table_row, info_table_start};

extern "C" {
    // ZEND_API zend_result zend_register_class_alias_ex(const char *name,
    //     size_t name_len, zend_class_entry *ce, bool persistent);
    fn zend_register_class_alias_ex(
        name: *const std::ffi::c_char,
        name_len: usize,
        ce: *mut zend_class_entry,
        persistent: bool,
    ) -> i32;
}

/// `ZEND_ACC_ALLOW_DYNAMIC_PROPERTIES` (PHP 8.2+): `$server->redis = ...`
/// is what Swoole's own examples do.
const ZEND_ACC_ALLOW_DYNAMIC_PROPERTIES: u32 = 1 << 15;

/// Marks a class so PHP 8.2 does not deprecate dynamic properties on it.
///
/// Takes a raw pointer, not a `&ClassEntry`: a shared-reference parameter
/// tells the compiler the function does not write through it, and it
/// dropped the write (seen in non-LTO builds). `&ClassEntry` coerces.
pub fn allow_dynamic_properties(ce: *const ClassEntry) {
    let ptr = ce.cast_mut();
    // SAFETY: called during module startup, before any request, on a class
    // entry we registered; nothing else reads or writes it concurrently.
    unsafe { (*ptr).ce_flags |= ZEND_ACC_ALLOW_DYNAMIC_PROPERTIES };
}

/// `ZEND_ACC_FINAL`.
const ZEND_ACC_FINAL: u32 = 1 << 5;

/// Marks a class `final`, as Swoole declares it.
/// (A raw pointer, as `allow_dynamic_properties` explains.)
pub fn make_final(ce: *const ClassEntry) {
    let ptr = ce.cast_mut();
    // SAFETY: as in `allow_dynamic_properties`: module startup, our class.
    unsafe { (*ptr).ce_flags |= ZEND_ACC_FINAL };
}

/// An object handler `unset_property` (`zend_object_unset_property_t`).
pub type UnsetFn = unsafe extern "C" fn(
    *mut ext_php_rs::ffi::zend_object,
    *mut ext_php_rs::ffi::zend_string,
    *mut *mut std::ffi::c_void,
);

/// Makes `unset_property` of `T`'s objects `f`. The handler table is the
/// class's own (ext-php-rs makes one per class, and tells its objects by
/// its address, which stays the same): only this entry changes.
pub fn set_unset_handler<T: RegisteredClass>(f: UnsetFn) {
    let h = std::ptr::from_ref(T::get_metadata().handlers()).cast_mut();
    // SAFETY: module startup, before any object of `T` exists: nothing
    // reads the table concurrently; Rust code never reads this entry (only
    // the engine does, through the objects' `handlers` pointer). A
    // volatile write, as `allow_dynamic_properties` explains.
    unsafe { std::ptr::addr_of_mut!((*h).unset_property).write_volatile(Some(f)) };
}

/// Swoole's `unset_property` for most of its classes: a property its root
/// class declares cannot be unset ("Property header of class
/// Swoole\Http\Response cannot be unset"); any other goes as usual.
///
/// # Safety
/// The arguments PHP passes to an `unset_property` handler.
unsafe fn deny_unset_body(
    object: *mut ext_php_rs::ffi::zend_object,
    member: *mut ext_php_rs::ffi::zend_string,
    cache_slot: *mut *mut std::ffi::c_void,
) {
    // SAFETY: PHP passes a live object, its class entry (and the parents,
    // registered at startup) and the member name.
    let declared = unsafe {
        let mut ce: &ClassEntry = &*(*object).ce;
        while let Some(p) = ce.parent() {
            ce = p;
        }
        !ext_php_rs::ffi::zend_hash_find(&raw const ce.properties_info, member).is_null()
    };
    if !declared {
        // SAFETY: the arguments PHP gave this handler.
        return unsafe { ext_php_rs::ffi::zend_std_unset_property(object, member, cache_slot) };
    }
    // SAFETY: as above: live name and class name strings.
    let (name, class) = unsafe {
        (
            String::from_utf8_lossy(zstr_bytes(member)).into_owned(),
            String::from_utf8_lossy(zstr_bytes((*(*object).ce).name)).into_owned(),
        )
    };
    let _ = ext_php_rs::exception::throw(
        ext_php_rs::zend::ce::error(),
        &format!("Property {name} of class {class} cannot be unset"),
    );
}

/// The bytes of a `zend_string`.
///
/// # Safety
/// `s` is a live `zend_string`.
pub(crate) unsafe fn zstr_bytes<'a>(s: *const ext_php_rs::ffi::zend_string) -> &'a [u8] {
    // SAFETY: a zend_string holds `len` bytes from `val`.
    unsafe { std::slice::from_raw_parts((*s).val.as_ptr().cast::<u8>(), (*s).len) }
}

// may_bail: no (it throws; a user error handler is not called).
crate::php::ffi::php_fn!(throw unsafe fn deny_unset(
    object: *mut ext_php_rs::ffi::zend_object,
    member: *mut ext_php_rs::ffi::zend_string,
    cache_slot: *mut *mut std::ffi::c_void,
) => deny_unset_body);

/// Swoole's classes whose declared properties cannot be unset.
fn deny_unsets() {
    set_unset_handler::<atomic::Atomic>(deny_unset);
    set_unset_handler::<atomic::AtomicLong>(deny_unset);
    set_unset_handler::<channel::Channel>(deny_unset);
    set_unset_handler::<client::Client>(deny_unset);
    set_unset_handler::<client_coro::Client>(deny_unset);
    set_unset_handler::<http_client_coro::Client>(deny_unset);
    set_unset_handler::<http_cookie::Cookie>(deny_unset);
    set_unset_handler::<http_request::Request>(deny_unset);
    set_unset_handler::<http_response::Response>(deny_unset);
    set_unset_handler::<http_server_coro::Server>(deny_unset);
    set_unset_handler::<lock::Lock>(deny_unset);
    set_unset_handler::<lock_coro::Lock>(deny_unset);
    set_unset_handler::<process::Process>(deny_unset);
    set_unset_handler::<process_pool::Pool>(deny_unset);
    set_unset_handler::<server::Server>(deny_unset);
    set_unset_handler::<server_port::Port>(deny_unset);
    set_unset_handler::<server_task::Task>(deny_unset);
    set_unset_handler::<socket_coro::Socket>(deny_unset);
    set_unset_handler::<table::Table>(deny_unset);
}

/// Registers a legacy class name (e.g. `swoole_http_server`) for `ce`.
pub fn class_alias(alias: &str, ce: &'static ClassEntry) {
    let Ok(name) = CString::new(alias) else {
        return;
    };
    // SAFETY: module startup; `name` is valid for the call and copied by PHP,
    // `ce` is a registered, persistent class entry.
    unsafe {
        zend_register_class_alias_ex(
            name.as_ptr(),
            alias.len(),
            std::ptr::from_ref(ce).cast_mut(),
            true,
        );
    }
}

/// A class entry registered at module startup. It is never written after
/// startup and lives as long as the process.
pub struct CeRef(pub &'static ClassEntry);
// SAFETY: see the type comment: read-only after MINIT, process lifetime.
unsafe impl Send for CeRef {}
// SAFETY: as above.
unsafe impl Sync for CeRef {}

/// Registers `name` as an internal subclass of `parent` with no methods of
/// its own. Unlike a `#[php_class]`, it inherits the parent's
/// `create_object` and constructor, so the parent's methods (Rust or PHP)
/// work on its objects.
pub fn internal_subclass(
    name: &str,
    parent: ext_php_rs::class::ClassEntryInfo,
) -> ext_php_rs::error::Result<&'static ClassEntry> {
    internal_subclass_with(name, parent, Vec::new())
}

/// `internal_subclass` with methods of its own: hand-written handlers that
/// touch no object state (static methods such as `WebSocket\Server::pack`).
pub fn internal_subclass_with(
    name: &str,
    parent: ext_php_rs::class::ClassEntryInfo,
    methods: Vec<(
        ext_php_rs::builders::FunctionBuilder<'static>,
        ext_php_rs::flags::MethodFlags,
    )>,
) -> ext_php_rs::error::Result<&'static ClassEntry> {
    // `registration` takes a plain fn, so the new entry comes back through
    // this slot (module startup is single-threaded).
    static LAST: AtomicPtr<ClassEntry> = AtomicPtr::new(std::ptr::null_mut());
    LAST.store(std::ptr::null_mut(), Ordering::SeqCst);
    let mut builder = ext_php_rs::builders::ClassBuilder::new(name).extends(parent);
    for (func, flags) in methods {
        builder = builder.method(func, flags);
    }
    builder
        .registration(|ce, _| LAST.store(ce, Ordering::SeqCst))
        .register()?;
    let ptr = LAST.load(Ordering::SeqCst);
    // SAFETY: non-null pointers in LAST come from the `&'static mut` PHP just
    // handed to the registration callback.
    unsafe { ptr.as_ref() }.ok_or(ext_php_rs::error::Error::InvalidPointer)
}

fn build(module: ModuleBuilder) -> ModuleBuilder {
    let m = module.info_function(module_info);
    let m = constants::register(m);
    let m = server::register(m);
    let m = server_port::register(m);
    let m = server_task::register(m);
    let m = http_request::register(m);
    let m = http_response::register(m);
    let m = http_cookie::register(m);
    let m = coroutine::register(m);
    let m = timer::register(m);
    let m = event::register(m);
    let m = errors::register(m);
    let m = exit::register(m);
    let m = functions::register(m);
    let m = waitgroup::register(m);
    let m = websocket_frame::register(m);
    let m = http_client_coro::register(m);
    let m = http2_client_coro::register(m);
    let m = http_server_coro::register(m);
    let m = socket_coro::register(m);
    let m = client_coro::register(m);
    let m = client::register(m);
    let m = lock_coro::register(m);
    let m = table::register(m);
    let m = atomic::register(m);
    let m = lock::register(m);
    let m = process::register(m);
    let m = process_pool::register(m);
    let m = runtime::register(m);
    channel::register(m)
        .request_startup_function(rinit)
        .request_shutdown_function(rshutdown)
}

/// Plain-PHP parts of the API (`Swoole\Coroutine\Barrier`), compiled at
/// request start, as Swoole does with its own library.
const LIBRARY: &str = include_str!("library.php");
/// `Swoole\Coroutine\go()` and its namespaced siblings (`library_co.php`).
const LIBRARY_CO: &str = include_str!("library_co.php");
/// `Swoole\Coroutine\Server` and `Server\Connection` (`library_server_coro.php`).
const LIBRARY_SERVER_CORO: &str = include_str!("library_server_coro.php");
/// `Swoole\Coroutine\Http2\Client`, `Http2\Request`, `Http2\Response` (`library_http2.php`).
const LIBRARY_HTTP2: &str = include_str!("library_http2.php");
/// The PHP half of the curl hooks (`library/curl.php`, see `hook_curl.rs`).
const LIBRARY_CURL: &str = include_str!("library/curl.php");
/// The PHP half of the ext-sockets hooks (`library/sockets.php`, see `hook_sockets.rs`).
const LIBRARY_SOCKETS: &str = include_str!("library/sockets.php");

/// Swoole's PHP library, our own code (`src/php/library/`): loaded unless
/// `swoole.enable_library` is off. Order matters: later files use earlier ones.
const LIBRARY_FILES: [&str; 6] = [
    include_str!("library/objects.php"),
    include_str!("library/functions.php"),
    include_str!("library/http.php"),
    include_str!("library/pool.php"),
    include_str!("library/fastcgi.php"),
    include_str!("library/server_helper.php"),
];

// may_bail: yes, it compiles the bundled library (a compile error is fatal).
crate::php::ffi::php_fn!(log fn rinit(_ty: i32, _module_number: i32) -> i32 => rinit_body ?= -1);
fn rinit_body(_ty: i32, _module_number: i32) -> i32 {
    let optional: &[&str] = if ini_on("swoole.enable_library") {
        &LIBRARY_FILES
    } else {
        &[]
    };
    for lib in [
        LIBRARY,
        LIBRARY_CO,
        LIBRARY_SERVER_CORO,
        LIBRARY_HTTP2,
        LIBRARY_CURL,
        LIBRARY_SOCKETS,
    ]
    .iter()
    .chain(optional)
    {
        if let Err(e) = ext_php_rs::php_eval::execute(lib) {
            ext_php_rs::error::php_error(
                &ext_php_rs::flags::ErrorType::CoreWarning,
                &format!("rswoole: the PHP library failed to load: {e}"),
            );
        }
    }
    0
}

/// `swoole.use_shortname` (default On): `go()`, `defer()`, `Co\run()`, `Co`, `Chan`.
static INI: IniEntryDefs<5> = IniEntryDefs::new([
    IniEntryDef::new(c"swoole.use_shortname", c"On", IniEntryPermission::System),
    IniEntryDef::new(c"swoole.enable_library", c"On", IniEntryPermission::All),
    // Blocking-call detection (php/watchdog.rs); threshold in microseconds.
    IniEntryDef::new(
        c"swoole.blocking_detection",
        c"Off",
        IniEntryPermission::System,
    ),
    IniEntryDef::new(
        c"swoole.blocking_threshold",
        c"100000",
        IniEntryPermission::System,
    ),
    IniEntryDef::end(),
]);

fn use_shortname() -> bool {
    ini_on("swoole.use_shortname")
}

/// Whether a boolean ini entry of ours (default On) is on.
fn ini_on(name: &str) -> bool {
    let v = ExecutorGlobals::get()
        .ini_values()
        .get(name)
        .cloned()
        .flatten()
        .unwrap_or_else(|| "On".into());
    !matches!(
        v.to_ascii_lowercase().as_str(),
        "0" | "off" | "false" | "no" | ""
    )
}

/// Removes the short function names when `swoole.use_shortname` is off.
fn drop_short_functions() {
    // SAFETY: module startup is single-threaded and CG(function_table)
    // (NTS: the `compiler_globals` symbol) holds the internal functions;
    // nothing else reads or writes it now.
    unsafe {
        let table = ext_php_rs::ffi::compiler_globals.function_table;
        if table.is_null() {
            return;
        }
        for name in coroutine::SHORT_FUNCTIONS {
            ext_php_rs::ffi::zend_hash_str_del(table, name.as_ptr().cast(), name.len());
        }
    }
}

// may_bail: yes, shutting the coroutines down runs PHP (defers, destructors).
crate::php::ffi::php_fn!(log fn rshutdown(_ty: i32, _module_number: i32) -> i32 => rshutdown_body ?= 0);
fn rshutdown_body(_ty: i32, _module_number: i32) -> i32 {
    coroutine::shutdown();
    timer::shutdown();
    event::shutdown();
    process::shutdown();
    runtime::shutdown();
    server_command::shutdown();
    0
}

extern "C" {
    /// SPL's `ArrayIterator` (SPL is always built in, and starts first).
    static spl_ce_ArrayIterator: *mut ext_php_rs::ffi::zend_class_entry;
    /// SPL's `ArrayObject`.
    static spl_ce_ArrayObject: *mut ext_php_rs::ffi::zend_class_entry;
}

fn array_object_ce() -> &'static ClassEntry {
    // SAFETY: as `array_iterator_ce`.
    unsafe { spl_ce_ArrayObject.as_ref() }.unwrap_or_else(ext_php_rs::zend::ce::stdclass)
}

fn array_iterator_ce() -> &'static ClassEntry {
    // SAFETY: SPL sets this pointer at its own module startup, before any
    // shared extension starts, and never changes it afterwards.
    unsafe { spl_ce_ArrayIterator.as_ref() }.unwrap_or_else(ext_php_rs::zend::ce::stdclass)
}

/// What must run after every `#[php_class]` is registered: internal
/// subclasses and the legacy aliases.
fn after_classes() -> ext_php_rs::error::Result<()> {
    exception::register_classes()?;
    // What `Coroutine::list()` and `Timer::list()` return, as in Swoole.
    let co_iterator = internal_subclass(
        "Swoole\\Coroutine\\Iterator",
        (array_iterator_ce, "ArrayIterator"),
    )?;
    internal_subclass(
        "Swoole\\Timer\\Iterator",
        (array_iterator_ce, "ArrayIterator"),
    )?;
    // What `Coroutine::getContext()` returns.
    let co_context = internal_subclass(
        "Swoole\\Coroutine\\Context",
        (array_object_ce, "ArrayObject"),
    )?;
    coroutine::set_context_ce(co_context);
    exit::register_classes()?;
    coroutine::register_classes()?;
    coroutine::init();
    let short = use_shortname();
    ext_php_rs::constant::IntoConst::register_constant(
        &short,
        "SWOOLE_USE_SHORTNAME",
        module_number(),
    )?;
    if short {
        class_alias(
            "Co",
            <coroutine::Coroutine as RegisteredClass>::get_metadata().ce(),
        );
        class_alias(
            "Co\\System",
            <coroutine::System as RegisteredClass>::get_metadata().ce(),
        );
        let chan = <channel::Channel as RegisteredClass>::get_metadata().ce();
        class_alias("Chan", chan);
        class_alias("Co\\Iterator", co_iterator);
        class_alias("Co\\Context", co_context);
        class_alias("Co\\Channel", chan);
        class_alias(
            "Co\\WaitGroup",
            <waitgroup::WaitGroup as RegisteredClass>::get_metadata().ce(),
        );
    } else {
        drop_short_functions();
    }
    http_client_coro::register_classes(short)?;
    http_server_coro::register_classes(short);
    socket_coro::register_classes(short)?;
    client_coro::register_classes(short)?;
    allow_dynamic_properties(server::server_ce());
    class_alias("swoole_server", server::server_ce());
    http_server::register_classes()?;
    websocket_server::register_classes()?;
    make_final(<server_task::Task as RegisteredClass>::get_metadata().ce());
    constants::register_table(module_number())?;
    // Swoole's declared types, before `args::install` decides from them
    // which handlers check their arguments.
    arginfo::apply_all();
    // After every class and function exists: it wraps each handler. Before
    // the `Response` fast paths, which take plain strings themselves and
    // fall back to the wrapped handler (so the hot path pays nothing).
    args::install();
    http_response::install_fast_paths();
    table::after_classes();
    runtime::after_classes();
    atomic::after_classes();
    coroutine::after_classes();
    autoload::install();
    channel::after_classes();
    deny_unsets();
    websocket_frame::after_classes();
    Ok(())
}

// may_bail: no.
crate::php::ffi::php_fn!(log fn module_info(_module: *mut ModuleEntry) => module_info_body);
fn module_info_body(_module: *mut ModuleEntry) {
    info_table_start!();
    info_table_row!("Swoole", "enabled (rswoole)");
    info_table_row!("Implementation", "rswoole, written in Rust");
    info_table_row!("rswoole version", env!("CARGO_PKG_VERSION"));
    info_table_row!("Swoole API version", constants::SWOOLE_VERSION);
    info_table_row!("Modes", "SWOOLE_BASE, SWOOLE_PROCESS");
    info_table_row!("HTTP", "hyper 1, HTTP/1.1");
    info_table_end!();
}

/// Swoole's module dependencies: `json`, required. A module with
/// dependencies starts after the modules loaded without any (`sockets`
/// among them), so the `AF_*`/`SOCKET_E*` constants that `sockets` also
/// defines are already there and `constants::register_table` skips them,
/// whatever the order of the `extension=` lines, as with Swoole.
struct Deps([ext_php_rs::ffi::_zend_module_dep; 2]);
// SAFETY: read-only static data (pointers to static C strings).
unsafe impl Sync for Deps {}
static DEPS: Deps = Deps([
    ext_php_rs::ffi::_zend_module_dep {
        name: c"json".as_ptr(),
        rel: std::ptr::null(),
        version: std::ptr::null(),
        type_: 1, // MODULE_DEP_REQUIRED
    },
    ext_php_rs::ffi::_zend_module_dep {
        name: std::ptr::null(),
        rel: std::ptr::null(),
        version: std::ptr::null(),
        type_: 0,
    },
]);

static STARTUP: ModuleStartupMutex = MODULE_STARTUP_INIT;
static BUILD_ERROR: OnceLock<String> = OnceLock::new();

static MODULE_NUMBER: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

fn module_number() -> i32 {
    MODULE_NUMBER.load(Ordering::SeqCst)
}

// may_bail: no.
crate::php::ffi::php_fn!(log fn minit(ty: i32, module_number: i32) -> i32 => minit_body ?= -1);
fn minit_body(ty: i32, module_number: i32) -> i32 {
    MODULE_NUMBER.store(module_number, Ordering::SeqCst);
    startup_guard(|| {
        ext_php_rs_startup();
        if let Some(err) = BUILD_ERROR.get() {
            return Err(ext_php_rs::error::Error::InvalidScope).inspect_err(|_| {
                ext_php_rs::error::php_error(
                    &ext_php_rs::flags::ErrorType::CoreWarning,
                    &format!("rswoole could not be built: {err}"),
                )
            });
        }
        IniEntryDef::register(INI.as_slice(), module_number);
        watchdog::install();
        if let Some(startup) = STARTUP.lock().as_ref() {
            startup.startup(ty, module_number)?;
        }
        after_classes()
    })
}

// may_bail: no.
crate::php::ffi::php_fn!(#[unsafe(no_mangle)] log pub fn get_module() -> *mut ModuleEntry => get_module_body ?= std::ptr::null_mut());
/// The module entry PHP asks for. Written by hand (rather than with
/// `#[php_module]`) for one reason: `after_classes` must run in MINIT after
/// the classes exist, and the macro offers no hook there.
fn get_module_body() -> *mut ModuleEntry {
    static ENTRY: StaticModuleEntry = StaticModuleEntry::new();
    ENTRY.get_or_init(|| {
        let builder = build(ModuleBuilder::new("swoole", constants::SWOOLE_VERSION));
        let built = builder.try_into().or_else(|e: ext_php_rs::error::Error| {
            let _ = BUILD_ERROR.set(e.to_string());
            ModuleBuilder::new("swoole", constants::SWOOLE_VERSION).try_into()
        });
        match built {
            Ok((mut entry, startup, owned)) => {
                entry.module_startup_func = Some(minit);
                entry.deps = DEPS.0.as_ptr();
                STARTUP.lock().replace(startup);
                (entry, owned)
            }
            Err(_) => unreachable!("a module with only static strings always builds"),
        }
    })
}
