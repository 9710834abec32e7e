//! Swoole's declared signatures on rswoole's functions and methods: the
//! parameter names, types and default texts, and the return types, that
//! Reflection, named arguments and a subclass's override check read.
//!
//! ext-php-rs derives a parameter's type from the Rust type it is parsed
//! into, so it cannot say `int|false`, `callable` or `Swoole\Server\Port`,
//! and a `&Zval` shows as `mixed`. At the end of MINIT this file reads
//! tests/signatures/swoole-6.2.2.txt (Swoole's surface, one line per
//! function) and rewrites the arginfo of each function or method of this
//! module whose shape already matches: same number of parameters, same
//! variadic and by-reference ones, same number of required ones. What it
//! rewrites is declarative only; the Rust code still parses the arguments.
//! A function whose shape differs is left as ext-php-rs made it, and
//! `make signatures-check` reports it.
//!
//! Swoole's declared types are not always what its argument parsing takes
//! (`Coroutine\Http\Client::setData()` declares `array|string` and takes
//! anything). `php/args.rs` coerces arguments by the types the Rust code
//! parses, so each rewritten function keeps a copy of its original arginfo
//! (with the new names) in a `reserved[]` slot; `checking_arg_info` hands
//! that copy to `args.rs`.

use std::ffi::{c_char, CString};

use ext_php_rs::ffi::{self, zend_function, zend_internal_arg_info, HashTable};
use ext_php_rs::types::ZendStr;
use ext_php_rs::zend::ClassEntry;

extern "C" {
    // ZEND_API int zend_get_resource_handle(const char *module_name);
    fn zend_get_resource_handle(module_name: *const c_char) -> std::ffi::c_int;
}

/// The `reserved[]` index holding a rewritten function's original arginfo
/// (`usize::MAX` until `apply_all` ran).
static SLOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// The parameter infos whose types say what the Rust code parses: the copy
/// `apply` kept, or the function's own arginfo if it was not rewritten.
/// Points at the first parameter, as `arg_info` does.
pub fn checking_arg_info(ifn: &ffi::zend_internal_function) -> *const zend_internal_arg_info {
    let slot = SLOT.load(std::sync::atomic::Ordering::Relaxed);
    match ifn.reserved.get(slot) {
        Some(p) if !p.is_null() => p.cast_const().cast(),
        _ => ifn.arg_info,
    }
}

const FACTS: &str = include_str!("../../tests/signatures/swoole-6.2.2.txt");

const MAY_BE_NULL: u32 = 1 << 1;
const MAY_BE_FALSE: u32 = 1 << 2;
const MAY_BE_TRUE: u32 = 1 << 3;
const MAY_BE_LONG: u32 = 1 << 4;
const MAY_BE_DOUBLE: u32 = 1 << 5;
const MAY_BE_STRING: u32 = 1 << 6;
const MAY_BE_ARRAY: u32 = 1 << 7;
const MAY_BE_OBJECT: u32 = 1 << 8;
const MAY_BE_RESOURCE: u32 = 1 << 9;
const MAY_BE_CALLABLE: u32 = 1 << 12;
const MAY_BE_VOID: u32 = 1 << 14;
const MAY_BE_STATIC: u32 = 1 << 15;
const MAY_BE_NEVER: u32 = 1 << 17;
const MAY_BE_ANY: u32 = MAY_BE_NULL
    | MAY_BE_FALSE
    | MAY_BE_TRUE
    | MAY_BE_LONG
    | MAY_BE_DOUBLE
    | MAY_BE_STRING
    | MAY_BE_ARRAY
    | MAY_BE_OBJECT
    | MAY_BE_RESOURCE;
/// `_ZEND_TYPE_NAME_BIT`: `ptr` is a `zend_string*` class name.
const TYPE_NAME_BIT: u32 = 1 << 24;
/// The bits of `type_mask` that describe the type; the ones above are the
/// argument's flags (send mode, variadic, tentative), which stay.
const TYPE_MASK: u32 = (1 << 25) - 1;
const SEND_MODE_SHIFT: u32 = 25;

const ZEND_INTERNAL_FUNCTION: u8 = 1;
const ZEND_ACC_HAS_TYPE_HINTS: u32 = 1 << 8;
const ZEND_ACC_HAS_RETURN_TYPE: u32 = 1 << 13;
const ZEND_ACC_VARIADIC: u32 = 1 << 14;

/// A type as text: scalar bits plus at most one class name.
#[derive(Debug, PartialEq)]
struct Type {
    mask: u32,
    class: Option<String>,
}

#[derive(Debug, PartialEq)]
struct Param {
    ty: Option<Type>,
    by_ref: bool,
    variadic: bool,
    name: String,
    /// The default as PHP source text; `None` when there is none.
    default: Option<String>,
    optional: bool,
}

#[derive(Debug, PartialEq)]
struct Signature {
    /// `Class::method` or `function`.
    name: String,
    params: Vec<Param>,
    ret: Option<Type>,
}

/// Splits `s` at top-level occurrences of `sep` (outside quotes, brackets
/// and parentheses).
fn split_top(s: &str, sep: &str) -> Vec<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start, mut i) = (0i32, None::<u8>, 0usize, 0usize);
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                _ if depth == 0 && bytes[i..].starts_with(sep.as_bytes()) => {
                    out.push(String::from_utf8_lossy(&bytes[start..i]).into_owned());
                    start = i + sep.len();
                    i = start;
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
    out.push(String::from_utf8_lossy(bytes.get(start..).unwrap_or_default()).into_owned());
    out
}

/// The index of the `)` closing a list that starts at `s[0]` (just after
/// its `(`), skipping quoted and nested parts.
fn close_paren(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let (mut depth, mut quote, mut i) = (1i32, None::<u8>, 0usize);
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(_) if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'(' | b'[' => depth += 1,
                b')' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn parse_type(text: &str) -> Option<Type> {
    let (text, nullable) = match text.strip_prefix('?') {
        Some(t) => (t, true),
        None => (text, false),
    };
    let mut ty = Type {
        mask: if nullable { MAY_BE_NULL } else { 0 },
        class: None,
    };
    for part in text.split('|') {
        ty.mask |= match part.to_ascii_lowercase().as_str() {
            "int" => MAY_BE_LONG,
            "float" => MAY_BE_DOUBLE,
            "string" => MAY_BE_STRING,
            "bool" => MAY_BE_FALSE | MAY_BE_TRUE,
            "false" => MAY_BE_FALSE,
            "true" => MAY_BE_TRUE,
            "null" => MAY_BE_NULL,
            "array" => MAY_BE_ARRAY,
            "object" => MAY_BE_OBJECT,
            "callable" => MAY_BE_CALLABLE,
            "mixed" => MAY_BE_ANY,
            "void" => MAY_BE_VOID,
            "static" => MAY_BE_STATIC,
            "never" => MAY_BE_NEVER,
            "iterable" | "" => return None,
            _ => {
                if ty.class.is_some() {
                    return None; // two class names need a type list
                }
                ty.class = Some(part.to_string());
                0
            }
        };
    }
    Some(ty)
}

fn parse_param(text: &str) -> Option<Param> {
    let mut halves = split_top(text, " = ").into_iter();
    let decl = halves.next()?;
    let default = halves.next();
    let (ty, name) = match decl.rsplit_once(' ') {
        Some((t, n)) => (Some(parse_type(t)?), n),
        None => (None, decl.as_str()),
    };
    let by_ref = name.starts_with('&');
    let name = name.trim_start_matches('&');
    let variadic = name.starts_with("...");
    let name = name.trim_start_matches("...").strip_prefix('$')?;
    Some(Param {
        ty,
        by_ref,
        variadic,
        name: name.to_string(),
        optional: default.is_some(),
        default: default.filter(|d| d != "?"),
    })
}

/// Parses a `method C::m(...): T [mods]` or `function f(...): T` line.
fn parse_line(line: &str) -> Option<Signature> {
    let rest = line
        .strip_prefix("method ")
        .or_else(|| line.strip_prefix("function "))?;
    let open = rest.find('(')?;
    let name = rest[..open].to_string();
    let after = rest.get(open + 1..)?;
    let close = close_paren(after)?;
    let inner = after.get(..close)?.to_string();
    let tail = after.get(close + 1..)?.trim();
    let tail = match tail.rfind(" [") {
        Some(i) if tail.ends_with(']') => &tail[..i],
        _ if tail.starts_with('[') => "",
        _ => tail,
    };
    let ret = match tail.strip_prefix(": ") {
        Some(t) => Some(parse_type(t.trim())?),
        None => None,
    };
    let params = if inner.is_empty() {
        Vec::new()
    } else {
        split_top(&inner, ", ")
            .iter()
            .map(|p| parse_param(p))
            .collect::<Option<Vec<_>>>()?
    };
    Some(Signature { name, params, ret })
}

fn leak_c(s: &str) -> *const c_char {
    CString::new(s).map_or(std::ptr::null(), |c| c.into_raw().cast_const())
}

fn set_type(slot: &mut ffi::zend_type, ty: Option<&Type>) {
    let flags = slot.type_mask & !TYPE_MASK;
    let Some(ty) = ty else {
        slot.type_mask = flags;
        slot.ptr = std::ptr::null_mut();
        return;
    };
    let mut mask = ty.mask;
    slot.ptr = std::ptr::null_mut();
    if let Some(class) = &ty.class {
        // A persistent string PHP releases with the arginfo at shutdown.
        slot.ptr = ZendStr::new(class, true).into_raw().cast();
        mask |= TYPE_NAME_BIT;
    }
    slot.type_mask = flags | mask;
}

/// Rewrites `func`'s arginfo to `sig` if the shapes match; returns whether
/// it did.
///
/// # Safety
/// `func` points to a live internal function of this module, at MINIT.
unsafe fn apply(func: *mut zend_function, sig: &Signature) -> bool {
    // SAFETY: the caller checked `func` is an internal function.
    let f = unsafe { &mut (*func).internal_function };
    if f.type_ != ZEND_INTERNAL_FUNCTION || f.arg_info.is_null() && f.num_args > 0 {
        return false;
    }
    let variadic = f.fn_flags & ZEND_ACC_VARIADIC != 0;
    let fixed: Vec<&Param> = sig.params.iter().filter(|p| !p.variadic).collect();
    let sig_variadic = sig.params.iter().any(|p| p.variadic);
    let required = fixed.iter().take_while(|p| !p.optional).count();
    if fixed.len() != f.num_args as usize
        || variadic != sig_variadic
        || required != f.required_num_args as usize
    {
        return false;
    }
    let total = sig.params.len();
    // SAFETY: PHP lays out an internal function's arginfo as the return
    // info at index -1, then `num_args` parameters, then the variadic one.
    let infos: &mut [zend_internal_arg_info] =
        unsafe { std::slice::from_raw_parts_mut(f.arg_info.sub(1), total + 1) };
    for (info, p) in infos[1..].iter_mut().zip(&sig.params) {
        let by_ref = (info.type_.type_mask >> SEND_MODE_SHIFT) & 3 != 0;
        if by_ref != p.by_ref {
            return false;
        }
    }
    // The original types stay for argument checking (see the module doc).
    let original: &'static mut [zend_internal_arg_info] =
        Box::leak(infos.to_vec().into_boxed_slice());
    let mut hints = false;
    for (info, p) in infos[1..].iter_mut().zip(&sig.params) {
        info.name = leak_c(&p.name);
        set_type(&mut info.type_, p.ty.as_ref());
        hints |= p.ty.is_some();
        info.default_value = p.default.as_deref().map_or(std::ptr::null(), leak_c);
    }
    set_type(&mut infos[0].type_, sig.ret.as_ref());
    if sig.ret.is_some() {
        f.fn_flags |= ZEND_ACC_HAS_RETURN_TYPE;
    } else {
        f.fn_flags &= !ZEND_ACC_HAS_RETURN_TYPE;
    }
    if hints {
        f.fn_flags |= ZEND_ACC_HAS_TYPE_HINTS;
    }
    for (copy, info) in original.iter_mut().zip(infos.iter()) {
        copy.name = info.name;
    }
    let slot = SLOT.load(std::sync::atomic::Ordering::Relaxed);
    if let Some(r) = f.reserved.get_mut(slot) {
        // Index 1: the first parameter, as `arg_info` points.
        *r = original.as_mut_ptr().wrapping_add(1).cast();
    }
    true
}

/// The function `name` in `table` (lower-cased lookup), if it is one of
/// this module's internal functions.
fn find(table: *const HashTable, name: &str) -> Option<*mut zend_function> {
    let lower = name.to_ascii_lowercase();
    // SAFETY: MINIT; `table` is a live function table and the key is valid
    // for the call.
    let func = unsafe { ffi::zend_hash_str_find_ptr_lc(table, lower.as_ptr().cast(), lower.len()) }
        .cast::<zend_function>();
    if func.is_null() {
        return None;
    }
    // SAFETY: entries of a function table are zend_functions; `module` is
    // set on every internal function and points to its module entry.
    let ours = unsafe {
        let f = &(*func).internal_function;
        f.type_ == ZEND_INTERNAL_FUNCTION
            && !f.module.is_null()
            && std::ffi::CStr::from_ptr((*f.module).name).to_bytes() == b"swoole"
    };
    ours.then_some(func)
}

/// A class by name from CG(class_table) (at MINIT the executor's lookup
/// is not set up yet).
fn class_entry(name: &str) -> Option<&'static ClassEntry> {
    let lower = name.to_ascii_lowercase();
    // SAFETY: NTS, MINIT: CG(class_table) holds every class registered so
    // far; the key is valid for the call.
    let ce = unsafe {
        ffi::zend_hash_str_find_ptr_lc(
            ffi::compiler_globals.class_table,
            lower.as_ptr().cast(),
            lower.len(),
        )
    }
    .cast::<ClassEntry>();
    // SAFETY: class table entries are class entries, alive for the process.
    unsafe { ce.as_ref() }
}

/// Applies every signature of the facts file that fits; returns how many
/// functions were rewritten.
pub fn apply_all() -> usize {
    // SAFETY: MINIT, single-threaded; the call only bumps the engine's
    // counter of reserved slots.
    let slot = unsafe { zend_get_resource_handle(c"swoole arginfo".as_ptr()) };
    let Ok(slot) = usize::try_from(slot) else {
        return 0; // no slot left: keep ext-php-rs's arginfo everywhere
    };
    SLOT.store(slot, std::sync::atomic::Ordering::Relaxed);
    let mut done = 0;
    for line in FACTS.lines() {
        let Some(sig) = parse_line(line) else {
            continue;
        };
        let func = if let Some((class, method)) = sig.name.split_once("::") {
            let Some(ce) = class_entry(class) else {
                continue;
            };
            // Only the class's own methods, not ones it inherits.
            find(&raw const ce.function_table, method).filter(|f| {
                // SAFETY: `find` returned a live internal function.
                let scope = unsafe { (*(*f)).common.scope };
                std::ptr::eq(scope.cast_const(), std::ptr::from_ref(ce).cast())
            })
        } else {
            // SAFETY: NTS: CG(function_table) is the `compiler_globals`
            // symbol's table, set up before any module starts.
            find(unsafe { ffi::compiler_globals.function_table }, &sig.name)
        };
        if let Some(func) = func {
            // SAFETY: `find` checked it is an internal function of ours.
            if unsafe { apply(func, &sig) } {
                done += 1;
            }
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_method_line() {
        let s = parse_line(
            "method Swoole\\Server::task(mixed $data, int $taskWorkerIndex = -1, ?callable $finishCallback = null): int|false [public]",
        )
        .expect("parses");
        assert_eq!(s.name, "Swoole\\Server::task");
        assert_eq!(s.params.len(), 3);
        assert_eq!(s.params[1].default.as_deref(), Some("-1"));
        assert_eq!(
            s.params[2].ty,
            Some(Type {
                mask: MAY_BE_NULL | MAY_BE_CALLABLE,
                class: None
            })
        );
        assert_eq!(
            s.ret,
            Some(Type {
                mask: MAY_BE_LONG | MAY_BE_FALSE,
                class: None
            })
        );
    }

    #[test]
    fn parses_defaults_with_commas_and_by_ref_variadics() {
        let s = parse_line(
            "function f(?array &$read, string $s = 'a, b', int $e = SWOOLE_EVENT_READ | SWOOLE_EVENT_WRITE, mixed ...$rest)",
        )
        .expect("parses");
        assert!(s.params[0].by_ref);
        assert_eq!(s.params[1].default.as_deref(), Some("'a, b'"));
        assert!(s.params[3].variadic);
        assert_eq!(s.ret, None);
    }

    #[test]
    fn class_types_and_unknown_defaults() {
        let s = parse_line("method A::b(Swoole\\WebSocket\\Frame|string $data, $x = ?): Swoole\\Server\\Port|false [public]")
            .expect("parses");
        assert_eq!(
            s.params[0].ty,
            Some(Type {
                mask: MAY_BE_STRING,
                class: Some("Swoole\\WebSocket\\Frame".into())
            })
        );
        assert!(s.params[1].optional && s.params[1].default.is_none() && s.params[1].ty.is_none());
        assert!(parse_type("A|B").is_none());
    }
}
