//! `Swoole\Http\Cookie`: a `Set-Cookie` builder whose fluent `with*()`
//! methods change the object and return it; `Response::cookie()` takes one.

use std::cell::RefCell;

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpException;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, Zval};

/// The attributes, as Swoole keeps them (an empty string is "not set").
#[derive(Clone, Default)]
pub struct Attrs {
    pub name: Vec<u8>,
    pub value: Vec<u8>,
    pub path: Vec<u8>,
    pub domain: Vec<u8>,
    pub same_site: Vec<u8>,
    pub priority: Vec<u8>,
    pub encode: bool,
    pub expires: i64,
    pub secure: bool,
    pub http_only: bool,
    pub partitioned: bool,
}

/// The first second of the year 10000.
const MAX_EXPIRES: i64 = 253_402_300_800;
/// Characters no cookie name, raw value, path or domain may hold.
const ILLEGAL: &[u8] = b",; \t\r\n\x0b\x0c";
const ILLEGAL_PRINT: &str = r#"",", ";", " ", "\t", "\r", "\n", "\013", or "\014""#;

impl Attrs {
    pub fn new(encode: bool) -> Self {
        Attrs {
            encode,
            ..Attrs::default()
        }
    }

    /// The `Set-Cookie` value, or the message Swoole warns with.
    pub fn to_line(&self) -> Result<Vec<u8>, String> {
        let bad =
            |s: &[u8], extra: &[u8]| s.iter().any(|c| ILLEGAL.contains(c) || extra.contains(c));
        if self.name.is_empty() {
            return Err("The name cannot be empty".into());
        }
        if bad(&self.name, b"=") {
            return Err(format!("The name cannot contain \"=\", {ILLEGAL_PRINT}"));
        }
        let mut out = self.name.clone();
        if self.value.is_empty() {
            out.extend_from_slice(b"=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT; Max-Age=0");
        } else {
            if !self.encode && bad(&self.value, b"") {
                return Err(format!("The value cannot contain {ILLEGAL_PRINT}"));
            }
            out.push(b'=');
            if self.encode {
                out.extend_from_slice(urlencode(&self.value).as_bytes());
            } else {
                out.extend_from_slice(&self.value);
            }
            if self.expires > 0 {
                if self.expires >= MAX_EXPIRES {
                    return Err("The expires cannot have a year greater than 9999".into());
                }
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or(0);
                out.extend_from_slice(
                    format!(
                        "; expires={}; Max-Age={}",
                        cookie_date(self.expires),
                        (self.expires - now).max(0)
                    )
                    .as_bytes(),
                );
            }
        }
        if !self.path.is_empty() {
            if bad(&self.path, b"") {
                return Err(format!("The path option cannot contain {ILLEGAL_PRINT}"));
            }
            out.extend_from_slice(b"; path=");
            out.extend_from_slice(&self.path);
        }
        if !self.domain.is_empty() {
            if bad(&self.domain, b"") {
                return Err(format!("The domain option cannot contain {ILLEGAL_PRINT}"));
            }
            out.extend_from_slice(b"; domain=");
            out.extend_from_slice(&self.domain);
        }
        if self.secure {
            out.extend_from_slice(b"; secure");
        }
        if self.http_only {
            out.extend_from_slice(b"; HttpOnly");
        }
        if !self.same_site.is_empty() {
            out.extend_from_slice(b"; SameSite=");
            out.extend_from_slice(&self.same_site);
        }
        if !self.priority.is_empty() {
            out.extend_from_slice(b"; Priority=");
            out.extend_from_slice(&self.priority);
        }
        if self.partitioned {
            out.extend_from_slice(b"; Partitioned");
        }
        Ok(out)
    }
}

/// PHP's `urlencode()` (space as `+`).
pub fn urlencode(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `D, d-M-Y H:i:s T` in GMT, the cookie date format.
fn cookie_date(t: i64) -> String {
    let st = std::time::UNIX_EPOCH + std::time::Duration::from_secs(t.max(0) as u64);
    // "Thu, 01 Jan 1970 00:00:01 GMT" -> "Thu, 01-Jan-1970 00:00:01 GMT"
    let d = httpdate::fmt_http_date(st);
    let p: Vec<&str> = d.split(' ').collect();
    if p.len() == 6 {
        format!("{} {}-{}-{} {} {}", p[0], p[1], p[2], p[3], p[4], p[5])
    } else {
        d
    }
}

#[php_class]
#[php(name = "Swoole\\Http\\Cookie")]
pub struct Cookie {
    attrs: RefCell<Attrs>,
}

/// `$this`, for the fluent methods.
fn this(obj: &mut ZendClassObject<Cookie>) -> Zval {
    let mut z = Zval::new();
    z.set_object(&mut obj.std);
    z
}

fn set(obj: &mut ZendClassObject<Cookie>, f: impl FnOnce(&mut Attrs)) -> Zval {
    f(&mut obj.attrs.borrow_mut());
    this(obj)
}

impl Cookie {
    pub fn attrs(&self) -> Attrs {
        self.attrs.borrow().clone()
    }

    /// The `Set-Cookie` value; on failure a warning, and the cookie is
    /// reset (as Swoole does).
    pub fn line(&self) -> Option<Vec<u8>> {
        let r = self.attrs.borrow().to_line();
        match r {
            Ok(l) => Some(l),
            Err(msg) => {
                php_error(&ErrorType::Warning, &msg);
                self.reset();
                None
            }
        }
    }
}

#[php_impl]
impl Cookie {
    #[php(defaults(encode = true))]
    pub fn __construct(encode: bool) -> Self {
        Cookie {
            attrs: RefCell::new(Attrs::new(encode)),
        }
    }

    pub fn with_name(self_: &mut ZendClassObject<Cookie>, name: &Zval) -> Zval {
        let v = bytes_of(name);
        set(self_, |a| a.name = v)
    }

    /// Swoole declares the argument optional, yet requires it.
    pub fn with_value(
        self_: &mut ZendClassObject<Cookie>,
        value: Option<&Zval>,
    ) -> PhpResult<Zval> {
        let v = bytes_of(required(value, "withValue")?);
        Ok(set(self_, |a| a.value = v))
    }

    #[php(defaults(expires = 0))]
    pub fn with_expires(self_: &mut ZendClassObject<Cookie>, expires: i64) -> Zval {
        set(self_, |a| a.expires = expires)
    }

    /// Swoole declares the argument optional, yet requires it.
    pub fn with_path(self_: &mut ZendClassObject<Cookie>, path: Option<&Zval>) -> PhpResult<Zval> {
        let v = bytes_of(required(path, "withPath")?);
        Ok(set(self_, |a| a.path = v))
    }

    /// Swoole declares the argument optional, yet requires it.
    pub fn with_domain(
        self_: &mut ZendClassObject<Cookie>,
        domain: Option<&Zval>,
    ) -> PhpResult<Zval> {
        let v = bytes_of(required(domain, "withDomain")?);
        Ok(set(self_, |a| a.domain = v))
    }

    #[php(defaults(secure = false))]
    pub fn with_secure(self_: &mut ZendClassObject<Cookie>, secure: bool) -> Zval {
        set(self_, |a| a.secure = secure)
    }

    #[php(defaults(http_only = false))]
    pub fn with_http_only(self_: &mut ZendClassObject<Cookie>, http_only: bool) -> Zval {
        set(self_, |a| a.http_only = http_only)
    }

    /// Swoole declares the argument optional, yet requires it.
    pub fn with_same_site(
        self_: &mut ZendClassObject<Cookie>,
        same_site: Option<&Zval>,
    ) -> PhpResult<Zval> {
        let v = bytes_of(required(same_site, "withSameSite")?);
        Ok(set(self_, |a| a.same_site = v))
    }

    /// Swoole declares the argument optional, yet requires it.
    pub fn with_priority(
        self_: &mut ZendClassObject<Cookie>,
        priority: Option<&Zval>,
    ) -> PhpResult<Zval> {
        let v = bytes_of(required(priority, "withPriority")?);
        Ok(set(self_, |a| a.priority = v))
    }

    #[php(defaults(partitioned = false))]
    pub fn with_partitioned(self_: &mut ZendClassObject<Cookie>, partitioned: bool) -> Zval {
        set(self_, |a| a.partitioned = partitioned)
    }

    pub fn to_string(&self) -> Zval {
        let mut z = Zval::new();
        match self.line() {
            Some(l) => z.set_zend_string(ext_php_rs::types::ZendStr::new(&l, false)),
            None => z.set_bool(false),
        }
        z
    }

    pub fn to_array(&self) -> Zval {
        let a = self.attrs.borrow();
        let mut ht = ZendHashTable::new();
        let b = super::http_request::bytes_zval;
        let _ = ht.insert("name", b(&a.name));
        let _ = ht.insert("value", b(&a.value));
        let _ = ht.insert("path", b(&a.path));
        let _ = ht.insert("domain", b(&a.domain));
        let _ = ht.insert("sameSite", b(&a.same_site));
        let _ = ht.insert("priority", b(&a.priority));
        let _ = ht.insert("encode", a.encode);
        let _ = ht.insert("expires", a.expires);
        let _ = ht.insert("secure", a.secure);
        let _ = ht.insert("httpOnly", a.http_only);
        let _ = ht.insert("partitioned", a.partitioned);
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }

    /// Back to a new cookie's state (`encode` too, as Swoole).
    pub fn reset(&self) {
        *self.attrs.borrow_mut() = Attrs::new(true);
    }
}

/// The argument Swoole's parser requires (its arginfo says optional).
fn required<'a>(arg: Option<&'a Zval>, method: &str) -> PhpResult<&'a Zval> {
    arg.ok_or_else(|| {
        PhpException::new(
            format!("Swoole\\Http\\Cookie::{method}() expects exactly 1 argument, 0 given"),
            0,
            ext_php_rs::zend::ce::argument_count_error(),
        )
    })
}

/// A string argument's bytes (other scalars as PHP converts them).
fn bytes_of(z: &Zval) -> Vec<u8> {
    super::http_response::scalar_bytes(z).unwrap_or_default()
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Cookie>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, value: &str, encode: bool) -> Result<Vec<u8>, String> {
        Attrs {
            name: name.into(),
            value: value.into(),
            path: b"/".to_vec(),
            ..Attrs::new(encode)
        }
        .to_line()
    }

    #[test]
    fn lines() {
        assert_eq!(line("a", "b c", true).as_deref(), Ok(&b"a=b+c; path=/"[..]));
        let d = line("a", "", true).unwrap_or_default();
        assert_eq!(
            d,
            b"a=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT; Max-Age=0; path=/"
        );
        assert!(line("a;b", "x", true).is_err());
        assert!(line("a", "b c", false).is_err());
    }
}
