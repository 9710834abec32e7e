//! Coroutine contexts: a C stack, a Zend VM stack page and the switch
//! between them, on PHP's own fiber switch.
//!
//! PHP 8.2 exports the machine-level half of its fibers: `make_fcontext` /
//! `jump_fcontext` (boost.context) and `zend_fiber_switch_context`, which
//! saves the executor's state (VM stack, current frame, bailout buffer,
//! active `\Fiber`, error_reporting) on the side that leaves and restores
//! it on the side that comes back, keeps `EG(current_fiber_context)` and
//! tells fiber observers. A coroutine is a `zend_fiber_context` of our own
//! kind: no `\Fiber` object, no method call per switch, and its C stack
//! comes from a slab shared by many coroutines (one kernel mapping per
//! slab instead of two per stack: `vm.max_map_count` no longer caps the
//! number of coroutines).
//!
//! User code that uses `\Fiber` inside a coroutine keeps working: a wait
//! inside a running user fiber suspends the fiber's context (it is what
//! `EG(current_fiber_context)` names), and resuming the coroutine switches
//! back into that one (`resume_at`), as PHP's own `Fiber::suspend` /
//! `resume` pair does with `previous` / `caller`.

use std::ffi::c_void;
use std::ptr;

use ext_php_rs::ffi::{self, zend_execute_data, zval};
use ext_php_rs::types::Zval;

/// `zend_fiber_status`.
const STATUS_INIT: i32 = 0;
const STATUS_DEAD: i32 = 3;
/// `ZEND_FIBER_TRANSFER_FLAG_BAILOUT`.
const FLAG_BAILOUT: u8 = 1 << 1;
/// `IS_NULL`.
const IS_NULL: u32 = 1;
/// Zend VM stack page of a coroutine (Swoole's is 8 KiB too); a deeper
/// call chain gets more pages from `zend_vm_stack_extend`.
const VM_PAGE: usize = 8 * 1024;
/// Free stacks beyond which a fully free slab is given back.
const RELEASE_AFTER: usize = 4 * SLAB_STACKS;
/// C stacks per slab (one mapping).
const SLAB_STACKS: usize = 128;

/// `ZEND_VM_STACK_HEADER_SLOTS`: the page header, in zvals.
const VM_HEADER_SLOTS: usize = std::mem::size_of::<VmStack>().div_ceil(std::mem::size_of::<zval>());

/// `ZEND_CALL_FRAME_SLOT`: a call frame, in zvals.
fn frame_slots() -> usize {
    std::mem::size_of::<zend_execute_data>().div_ceil(std::mem::size_of::<zval>())
}

/// The function of every coroutine's dummy bottom frame: an internal
/// function with no name (PHP's `zend_fiber_function` is the same).
fn bottom_function() -> *mut ffi::zend_function {
    static F: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let p = F.get_or_init(|| {
        // SAFETY: an all-zero zend_function is a valid (empty) union; only
        // its type is set. Leaked: it lives as long as the process.
        let f: Box<ffi::zend_function> = Box::new(unsafe { std::mem::zeroed() });
        let f = Box::leak(f);
        f.type_ = ffi::ZEND_INTERNAL_FUNCTION as u8;
        ptr::from_mut(f) as usize
    });
    *p as *mut ffi::zend_function
}

/// `zend_fiber_context` (Zend/zend_fibers.h, PHP 8.2).
#[repr(C)]
pub struct ZendFiberContext {
    handle: *mut c_void,
    kind: *mut c_void,
    function: *mut c_void,
    cleanup: *mut c_void,
    stack: *mut c_void,
    status: i32,
    top_observed_frame: *mut zend_execute_data,
    reserved: [*mut c_void; 6],
}

/// `zend_fiber_transfer`.
#[repr(C)]
struct Transfer {
    context: *mut ZendFiberContext,
    /// Always null in our transfers (no value passes between contexts):
    /// nothing to drop, and no drop call on each switch.
    value: std::mem::ManuallyDrop<zval>,
    flags: u8,
}

/// boost.context's `transfer_t` as PHP names it (`boost_context_data`).
#[repr(C)]
struct BoostData {
    handle: *mut c_void,
    transfer: *mut Transfer,
}

/// `struct _zend_vm_stack`.
#[repr(C)]
struct VmStack {
    top: *mut zval,
    end: *mut zval,
    prev: *mut VmStack,
}

extern "C" {
    // void *make_fcontext(void *sp, size_t size, void (*fn)(boost_context_data));
    fn make_fcontext(sp: *mut c_void, size: usize, f: extern "C" fn(BoostData)) -> *mut c_void;
    // ZEND_API void zend_fiber_switch_context(zend_fiber_transfer *transfer);
    fn zend_fiber_switch_context(transfer: *mut Transfer);
    // ZEND_API void zend_fiber_destroy_context(zend_fiber_context *context);
    fn zend_fiber_destroy_context(context: *mut ZendFiberContext);
    // ZEND_API void zend_observer_fiber_init_notify(zend_fiber_context *initializing);
    fn zend_observer_fiber_init_notify(context: *mut ZendFiberContext);
    // ZEND_API void zend_observer_fiber_destroy_notify(zend_fiber_context *destroying);
    fn zend_observer_fiber_destroy_notify(context: *mut ZendFiberContext);
    // ZEND_API ZEND_COLD void zend_throw_graceful_exit(void);
    fn zend_throw_graceful_exit();
    // ZEND_API void zend_fetch_debug_backtrace(zval *return_value, int skip_last, int options, int limit);
    fn zend_fetch_debug_backtrace(rv: *mut zval, skip_last: i32, options: i32, limit: i32);
    fn _emalloc(size: usize) -> *mut c_void;
    fn _efree(ptr: *mut c_void);
}

/// Identifies our contexts to observers (`zend_fiber_context.kind`).
static KIND: u8 = 0;

/// One coroutine's context. `zctx` comes first: `EG(current_fiber_context)`
/// points at it while the coroutine runs.
#[repr(C)]
pub struct Context {
    zctx: ZendFiberContext,
    /// Who resumed us: where a suspension returns.
    caller: *mut ZendFiberContext,
    /// The context to switch into to resume us: ours, or a user `\Fiber`
    /// running inside this coroutine that the wait happened in.
    resume_at: *mut ZendFiberContext,
    /// The executing frame while suspended (backtraces).
    exec: *mut zend_execute_data,
    vm_page: *mut VmStack,
    stack: Stack,
    /// The body ended; the context is back in the pool or to be disposed.
    pub(super) finished: bool,
    /// The coroutine side gave up this context (pool full, bailout,
    /// shutdown): whoever it switched to frees it.
    pub(super) dispose: bool,
    /// Resumed only to be unwound (request shutdown).
    pub(super) unwind: bool,
    /// The scheduler's record of the coroutine on this context (in the
    /// context, so the scheduler's table of coroutines holds a pointer).
    rec: super::Coro,
    /// Set while a body runs with no `zend_try` of its own (`rescue_slot`):
    /// what the context's own `zend_try` does with its bailout.
    rescue: Option<Rescue>,
}

/// How a body that runs under its context's `zend_try` (no `setjmp` of its
/// own, see `rescue_slot`) ends when it bails out: `f(cid, data)`, called
/// on the context's stack once the bailout reached the context's
/// `zend_try` (the body's frames are gone: `data` is all it has). `f` must
/// not bail out (it runs under a `zend_try` of its own, and a bailout
/// there ends the context as an unrescued one does).
#[derive(Clone, Copy)]
pub struct Rescue {
    pub f: fn(super::Cid, [usize; 2]),
    pub cid: super::Cid,
    pub data: [usize; 2],
}

/// The rescue slot of the running context when the caller runs on one of
/// ours directly (a coroutine body, not a user `\Fiber` inside it); the
/// body sets it before a call that may bail out and takes it back after
/// (the slot stays valid while the body runs: it is the context's own).
#[inline(always)]
pub fn rescue_slot() -> Option<*mut Option<Rescue>> {
    // SAFETY: the PHP thread; a fiber context of our kind is a live
    // `Context` (its first field), running now.
    unsafe {
        let cur = (*eg()).current_fiber_context.cast::<ZendFiberContext>();
        if cur.is_null() || (*cur).kind != (&raw const KIND).cast_mut().cast() {
            return None;
        }
        Some(&raw mut (*cur.cast::<Context>()).rescue)
    }
}

/// How a `resume` came back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// The coroutine waits again.
    Suspended,
    /// Its body ended; `dispose`: the context was not pooled and must be
    /// freed by the resumer (`Ctx::destroy`).
    Finished { dispose: bool },
    /// A fatal error outside the body's own `zend_try`: the context is
    /// dead (`Ctx::forget` it) and the bailout must go on in the resumer
    /// (`ext_php_rs::zend::bailout`), as PHP forwards a `\Fiber`'s.
    Bailout,
}

/// A raw context pointer, owned by the scheduler.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ctx(*mut Context);

thread_local! {
    /// Boxed (static TLS budget); see `Stacks`.
    static STACKS: Box<std::cell::RefCell<Stacks>> = Box::new(std::cell::RefCell::new(Stacks::default()));
}

/// Swoole's `c_stack_size` bounds and default (2 MiB, as Swoole's).
const MIN_STACK: usize = 64 * 1024;
const MAX_STACK: usize = 16 * 1024 * 1024;
static STACK_SIZE: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(2 * 1024 * 1024);

/// `Coroutine::set(['c_stack_size' => n])`: the C stack of coroutines
/// created from now on, clamped to 64 KiB..16 MiB and rounded up to 4 KiB,
/// as Swoole does.
pub fn set_stack_size(n: usize) {
    let n = n.clamp(MIN_STACK, MAX_STACK).div_ceil(4096) * 4096;
    STACK_SIZE.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// The C stack size of new coroutines.
pub fn stack_size() -> usize {
    STACK_SIZE.load(std::sync::atomic::Ordering::Relaxed)
}

/// A C stack: `size` bytes below `top`, in slab `slab`.
#[derive(Clone, Copy)]
struct Stack {
    top: *mut u8,
    size: usize,
    slab: usize,
}

/// Slabs of C stacks: each slab is one anonymous `MAP_NORESERVE` mapping
/// holding `SLAB_STACKS` stacks; only the pages a coroutine touches cost
/// memory. Stacks have no guard page (a guard would split the mapping), as
/// Swoole's malloc()ed ones have none. A stack given back stays committed
/// for reuse; once every stack of a slab is free again (after a burst),
/// the whole slab's pages go back to the kernel in one `madvise`, not one
/// system call per coroutine.
#[derive(Default)]
struct Stacks {
    size: usize,
    /// (base, length, stacks free, pages given back since last used).
    slabs: Vec<(*mut c_void, usize, usize, bool)>,
    free: Vec<Stack>,
    /// A slab became fully free since the trim task last looked.
    trim_due: bool,
    /// The trim task is queued.
    trim_queued: bool,
}

impl Stacks {
    fn take(&mut self) -> Option<Stack> {
        let size = stack_size();
        if self.size != size {
            // `c_stack_size` changed: stacks of the old size stay for the
            // contexts that hold them; new ones come from new slabs.
            self.size = size;
        }
        let found = match self.free.last() {
            Some(s) if s.size == size => self.free.pop(),
            Some(_) => self
                .free
                .iter()
                .rposition(|s| s.size == size)
                .map(|i| self.free.swap_remove(i)),
            None => None,
        };
        if let Some(s) = found {
            if let Some(slab) = self.slabs.get_mut(s.slab) {
                slab.2 -= 1;
                slab.3 = false;
            }
            return Some(s);
        }
        let len = self.size * SLAB_STACKS;
        // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let slab = self.slabs.len();
        self.slabs.push((base, len, SLAB_STACKS - 1, false));
        // Handed out from the lowest address up (popped from the end).
        for i in (0..SLAB_STACKS).rev() {
            // SAFETY: inside the mapping just made.
            let top = unsafe { base.cast::<u8>().add((i + 1) * self.size) };
            self.free.push(Stack {
                top,
                size: self.size,
                slab,
            });
        }
        self.free.pop()
    }

    /// Takes a stack back; `release`: the caller does not expect to reuse
    /// it soon (its slab's pages may go back to the kernel).
    fn put(&mut self, s: Stack, release: bool) {
        self.free.push(s);
        let Some(slab) = self.slabs.get_mut(s.slab) else {
            return;
        };
        slab.2 += 1;
        // Only after a burst (many stacks free), and not at once: giving a
        // slab back costs the kernel its page-table walk (~20% of waking
        // 100,000 sleeping coroutines when done inline), so fully free
        // slabs are trimmed by a loop task a second after the last one
        // became free (Swoole's malloc()ed stacks stay in the heap).
        if release && slab.2 == SLAB_STACKS && self.free.len() > RELEASE_AFTER {
            self.trim_due = true;
            if !self.trim_queued {
                self.trim_queued = true;
                crate::engine::rt::event_loop::spawn_untracked(async {
                    loop {
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                        let again = STACKS.with(|s| s.borrow_mut().trim());
                        if !again {
                            break;
                        }
                    }
                });
            }
        }
    }

    /// Gives every fully free slab's pages back to the kernel; true when
    /// a slab became free since the last call (try again later).
    fn trim(&mut self) -> bool {
        if std::mem::take(&mut self.trim_due) {
            return true;
        }
        self.trim_queued = false;
        for slab in &mut self.slabs {
            if slab.2 == SLAB_STACKS && !slab.3 {
                // SAFETY: every stack of this slab is free (no coroutine
                // runs on it); its pages are returned and read back as zeros.
                unsafe {
                    libc::madvise(slab.0, slab.1, libc::MADV_DONTNEED);
                }
                slab.3 = true;
            }
        }
        false
    }
}

fn eg() -> *mut ffi::_zend_executor_globals {
    &raw mut ffi::executor_globals
}

impl Ctx {
    /// A new context whose first resume runs the body hook.
    pub fn new() -> Option<Ctx> {
        let stack = STACKS.with(|s| s.borrow_mut().take())?;
        // SAFETY: a live request (emalloc); the page is initialised below.
        let page = unsafe { _emalloc(VM_PAGE) }.cast::<VmStack>();
        // SAFETY: `stack` is a fresh, unused C stack of `size` bytes below
        // `top`; make_fcontext lays out the first frame there.
        let handle = unsafe { make_fcontext(stack.top.cast(), stack.size, trampoline) };
        let ctx = Box::new(Context {
            zctx: ZendFiberContext {
                handle,
                kind: (&raw const KIND).cast_mut().cast(),
                function: ptr::null_mut(),
                cleanup: ptr::null_mut(),
                stack: ptr::null_mut(),
                status: STATUS_INIT,
                top_observed_frame: ptr::null_mut(),
                reserved: [ptr::null_mut(); 6],
            },
            caller: ptr::null_mut(),
            resume_at: ptr::null_mut(),
            exec: ptr::null_mut(),
            vm_page: page,
            stack,
            finished: false,
            dispose: false,
            unwind: false,
            rec: super::Coro::blank(),
            rescue: None,
        });
        let raw = Box::into_raw(ctx);
        // SAFETY: `raw` is the live context just made.
        unsafe {
            (*raw).resume_at = &raw mut (*raw).zctx;
            zend_observer_fiber_init_notify(&raw mut (*raw).zctx);
        }
        Some(Ctx(raw))
    }

    /// Frees a context nobody runs on (finished, or never to be resumed).
    /// `release`: also give its stack pages back to the kernel.
    pub fn destroy(self, release: bool) {
        // SAFETY: the context is not running (we are not on its stack) and
        // nobody will switch into it again; it was made by `new`.
        unsafe {
            let b = Box::from_raw(self.0);
            zend_observer_fiber_destroy_notify(ptr::from_ref(&b.zctx).cast_mut());
            if !b.vm_page.is_null() {
                _efree(b.vm_page.cast());
            }
            let stack = b.stack;
            STACKS.with(|s| s.borrow_mut().put(stack, release));
        }
    }

    /// Forgets a context without touching PHP memory (after a fatal
    /// error, or at request end when the engine frees all at once).
    pub fn forget(self, release: bool) {
        // SAFETY: as `destroy`, minus the VM page (PHP frees it itself).
        unsafe {
            let mut b = Box::from_raw(self.0);
            b.vm_page = ptr::null_mut();
            let stack = b.stack;
            STACKS.with(|s| s.borrow_mut().put(stack, release));
        }
    }

    /// The coroutine record this context holds.
    ///
    /// # Safety
    /// The context is live (owned by the scheduler), and no other reference
    /// to its record exists while the returned one is used (the scheduler
    /// hands it out only under its own `RefCell` borrow).
    pub(super) unsafe fn rec<'a>(self) -> &'a mut super::Coro {
        // SAFETY: see the function's contract.
        unsafe { &mut (*self.0).rec }
    }

    pub fn is_finished(&self) -> bool {
        // SAFETY: a live context (the scheduler owns it until `destroy`),
        // read on the PHP thread.
        unsafe { (*self.0).finished }
    }

    pub fn is_disposed(&self) -> bool {
        // SAFETY: as `is_finished`.
        unsafe { (*self.0).dispose }
    }

    pub fn is_unwinding(&self) -> bool {
        // SAFETY: as `is_finished`.
        unsafe { (*self.0).unwind }
    }

    pub fn set_unwind(&self) {
        // SAFETY: as `is_finished`; nothing else holds a reference to it.
        unsafe { (*self.0).unwind = true };
    }

    /// Runs the context (first time: its body from the start) until it
    /// suspends or finishes.
    #[inline(always)]
    pub fn resume(&self) -> Outcome {
        let c = self.0;
        // SAFETY: the PHP thread; `c` is live and suspended (or new): we
        // switch into the context that suspended in its stead, and PHP's
        // switch saves and restores this side's executor state.
        unsafe {
            (*c).caller = (*eg()).current_fiber_context.cast();
            (*c).finished = false;
            // A coroutine resuming another (`go()` inside it) waits on its
            // stack meanwhile: its frame too is shown by backtraces.
            let outer = (*c).caller;
            let outer = (!outer.is_null() && (*outer).kind == (&raw const KIND).cast_mut().cast())
                .then(|| outer.cast::<Context>());
            if let Some(o) = outer {
                (*o).exec = (*eg()).current_execute_data;
            }
            let mut t = Transfer {
                context: (*c).resume_at,
                value: std::mem::ManuallyDrop::new(null_zval()),
                flags: 0,
            };
            zend_fiber_switch_context(&raw mut t);
            if let Some(o) = outer {
                (*o).exec = ptr::null_mut();
            }
            if t.flags & FLAG_BAILOUT != 0 {
                Outcome::Bailout
            } else if (*c).finished {
                Outcome::Finished {
                    dispose: (*c).dispose,
                }
            } else {
                Outcome::Suspended
            }
        }
    }

    /// Suspends the running coroutine (its context, or the user fiber it
    /// runs in) and returns to whoever resumed it. Returns when resumed.
    pub fn suspend(&self) {
        let c = self.0;
        // SAFETY: the PHP thread, on this coroutine's stack (or a user fiber
        // inside it); `caller` is the live context that resumed us.
        unsafe {
            (*c).resume_at = (*eg()).current_fiber_context.cast();
            (*c).exec = (*eg()).current_execute_data;
            let mut t = Transfer {
                context: (*c).caller,
                value: std::mem::ManuallyDrop::new(null_zval()),
                flags: 0,
            };
            (*c).caller = ptr::null_mut();
            zend_fiber_switch_context(&raw mut t);
            (*c).exec = ptr::null_mut();
        }
    }

    /// The suspended coroutine's backtrace (as `debug_backtrace()` would
    /// show it at its wait).
    pub fn trace(&self, options: i64, limit: i64) -> Option<Zval> {
        // SAFETY: as `is_finished`.
        let exec = unsafe { (*self.0).exec };
        if exec.is_null() {
            return None;
        }
        let mut z = Zval::new();
        // SAFETY: the PHP thread; `exec` is the suspended coroutine's live
        // frame chain (its bottom frame's `prev` is null), and the running
        // frame is put back right after.
        unsafe {
            let e = eg();
            let saved = (*e).current_execute_data;
            (*e).current_execute_data = exec;
            zend_fetch_debug_backtrace(
                ptr::from_mut(&mut z).cast(),
                0,
                options as i32,
                limit.clamp(0, i64::from(i32::MAX)) as i32,
            );
            (*e).current_execute_data = saved;
        }
        Some(z)
    }
}

/// A graceful exit (what PHP throws into a `\Fiber` it destroys) for a
/// coroutine being unwound: user code cannot catch it, `finally` runs.
pub fn throw_unwind() {
    // SAFETY: the PHP thread, with no exception pending that this replaces
    // (PHP chains one that is).
    unsafe { zend_throw_graceful_exit() };
}

fn null_zval() -> zval {
    // SAFETY: an all-zero zval with type IS_NULL is a valid null.
    let mut z: zval = unsafe { std::mem::zeroed() };
    z.u1.type_info = IS_NULL;
    z
}

/// Every context starts here, on its own stack.
extern "C" fn trampoline(data: BoostData) {
    // SAFETY: called by jump_fcontext on the first switch into a context
    // made by `Ctx::new`; `data.transfer` is the switcher's live transfer,
    // and EG(current_fiber_context) is our context (set by the switch).
    unsafe {
        let from = (*data.transfer).context;
        (*from).handle = data.handle;
        if (*from).status == STATUS_DEAD {
            zend_fiber_destroy_context(from);
        }
        let c = (*eg()).current_fiber_context.cast::<Context>();
        loop {
            // One zend_try for the context's whole life (not one per
            // coroutine it runs): `EG(bailout)` is saved and restored with
            // each switch, so it stays this context's between them.
            let run = std::panic::AssertUnwindSafe(|| serve(c));
            let _ = ext_php_rs::zend::try_catch(run);
            // A bailout (or a panic) in a body that left it to this
            // zend_try (`rescue_slot`): the body's owner ends it, the
            // coroutine ends as a returning one does, and the context
            // serves on (under a new zend_try).
            let Some(r) = (*c).rescue.take() else {
                break;
            };
            // The body's frames are gone: its owner runs on a fresh state.
            fresh_state(c);
            let rescued = std::panic::AssertUnwindSafe(|| (r.f)(r.cid, r.data));
            if ext_php_rs::zend::try_catch(rescued).is_err() {
                break;
            }
            let pooled = super::finish_one(Ctx(c), r.cid);
            switch_to_caller(c, !pooled, 0);
            if (*c).dispose {
                // Nobody may resume a disposed context.
                std::process::abort();
            }
        }
        // A bailout (or a panic) the body did not catch: the context is
        // dead; the resumer forgets it and goes on with the bailout.
        switch_to_caller(c, true, FLAG_BAILOUT);
        std::process::abort();
    }
}

/// Ends the coroutine running on `c`: marks the context finished (and
/// to be disposed by the resumer when `dispose`) and switches back to whoever
/// resumed it, with transfer `flags`. Returns only if the context is reused.
///
/// # Safety
/// `c` is the running context, on its own stack; its `caller` is live.
unsafe fn switch_to_caller(c: *mut Context, dispose: bool, flags: u8) {
    // SAFETY: see the function's contract.
    unsafe {
        (*c).finished = true;
        (*c).dispose = dispose;
        (*c).resume_at = &raw mut (*c).zctx;
        let mut t = Transfer {
            context: (*c).caller,
            value: std::mem::ManuallyDrop::new(null_zval()),
            flags,
        };
        (*c).caller = ptr::null_mut();
        zend_fiber_switch_context(&raw mut t);
    }
}

/// A fresh executor state for a coroutine on `c`.
///
/// # Safety
/// `c` is the running context, on its own stack.
#[inline(always)]
unsafe fn fresh_state(c: *mut Context) {
    // SAFETY: see the function's contract; EG is PHP's (NTS) global.
    unsafe {
        // A fresh executor state for this coroutine: its own VM stack,
        // no frame below its body (traces end at the coroutine, as in
        // Swoole), no active `\Fiber`.
        //
        // The bottom frame is a dummy internal call, as a `\Fiber`'s is:
        // with no frame at all, an exception left uncaught by the body
        // would be a fatal error inside zend_call_function ("Uncaught
        // ..." and a bailout) instead of reaching our boundary. Its
        // `prev` is null, so backtraces stop there.
        let page = (*c).vm_page;
        let base = page.cast::<zval>();
        let first = base.add(VM_HEADER_SLOTS);
        let frame = first.cast::<zend_execute_data>();
        ptr::write_bytes(frame, 0, 1);
        (*frame).func = bottom_function();
        (*page).top = first;
        (*page).end = base.add(VM_PAGE / std::mem::size_of::<zval>());
        (*page).prev = ptr::null_mut();
        let e = eg();
        (*e).vm_stack = page.cast();
        (*e).vm_stack_top = first.add(frame_slots());
        (*e).vm_stack_end = (*page).end;
        (*e).vm_stack_page_size = VM_PAGE;
        (*e).current_execute_data = frame;
        (*e).active_fiber = ptr::null_mut();
    }
}

/// True when the executor state is still `fresh_state`'s (the bottom
/// frame running, nothing above it on the VM stack).
///
/// # Safety
/// `c` is the running context, on its own stack.
#[inline(always)]
unsafe fn is_fresh(c: *mut Context) -> bool {
    // SAFETY: see the function's contract; EG is PHP's (NTS) global.
    unsafe {
        let first = (*c).vm_page.cast::<zval>().add(VM_HEADER_SLOTS);
        let e = eg();
        std::ptr::eq((*e).current_execute_data, first.cast::<zend_execute_data>())
            && std::ptr::eq((*e).vm_stack_top, first.add(frame_slots()))
    }
}

/// The loop of a context: one coroutine per round, then back to the
/// resumer until reused. Leaves only by a bailout.
///
/// # Safety
/// `c` is the running context (called on its own stack by `trampoline`).
unsafe fn serve(c: *mut Context) {
    let me = Ctx(c);
    // SAFETY: see the function's contract; EG is PHP's (NTS) global.
    unsafe {
        fresh_state(c);
        loop {
            // The scheduler's body (`run_one`), called directly: it is
            // the only one, and a direct call is inlined here.
            let pooled = super::run_one(me);
            switch_to_caller(c, !pooled, 0);
            if (*c).dispose {
                // Nobody may resume a disposed context.
                std::process::abort();
            }
            // Reused. The switch back in restored the executor state this
            // context left at its switch-out: the fresh one again, as
            // every body returns through `zend_call_function` (which pops
            // its frames and puts the bottom frame back; nothing writes
            // into that internal frame) or is put back by the boundary
            // after a bailout. Checked, not rewritten, on every reuse.
            if !is_fresh(c) {
                fresh_state(c);
            }
        }
    }
}
