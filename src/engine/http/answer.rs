//! A single-threaded one-value slot for a response head (the `Responder`'s
//! answer to the connection): tokio's `oneshot` made for one thread,
//! without its atomics, and without an allocation of its own: the slot
//! lives inside the sender's shared state (`Holder`), which the receiver
//! holds a reference to.

use std::cell::Cell;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// The value, and what each side knows of the other. The sending side is
/// whatever holds the slot (`send` at most once, then or else `close`).
pub struct Slot<T> {
    value: Cell<Option<T>>,
    /// Nothing more will come (after the value, if one was sent).
    closed: Cell<bool>,
    /// The receiver still exists.
    receiver: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

/// A structure holding a slot (the sender's state).
pub trait Holder<T> {
    fn slot(&self) -> &Slot<T>;
}

impl<T> Holder<T> for Slot<T> {
    fn slot(&self) -> &Slot<T> {
        self
    }
}

/// The receiving half: `try_recv`, or await the value (`Err(Closed)` once
/// the slot is closed without one).
pub struct Receiver<T, H: Holder<T> = Slot<T>> {
    holder: Rc<H>,
    _value: PhantomData<fn() -> T>,
}

/// The slot was closed without a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing yet; a value may still come.
    Empty,
    /// Closed without a value.
    Closed,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Slot<T> {
    /// An open, empty slot whose receiver is to be made (`Receiver::new`).
    pub const fn new() -> Self {
        Slot {
            value: Cell::new(None),
            closed: Cell::new(false),
            receiver: Cell::new(true),
            waker: Cell::new(None),
        }
    }

    /// Hands `value` to the receiver and closes the slot; gives it back
    /// when the receiver is gone or the slot closed (a value is sent once:
    /// after that only the receiver reaches it, see `Receiver::value_mut`).
    #[inline]
    pub fn send(&self, value: T) -> Result<(), T> {
        if !self.receiver.get() || self.closed.get() {
            self.closed.set(true);
            return Err(value);
        }
        // Empty: a value is sent once. Forgetting the `None` spares a call
        // to its drop glue.
        let none = self.value.replace(Some(value));
        debug_assert!(none.is_none());
        std::mem::forget(none);
        self.close();
        Ok(())
    }

    /// Nothing (more) will be sent: the receiver is woken.
    #[inline]
    pub fn close(&self) {
        self.closed.set(true);
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }

    /// The receiver still exists.
    #[inline]
    pub fn has_receiver(&self) -> bool {
        self.receiver.get()
    }
}

impl<T, H: Holder<T>> Receiver<T, H> {
    /// The receiver of the slot in `holder` (one per slot).
    pub fn new(holder: Rc<H>) -> Self {
        Receiver {
            holder,
            _value: PhantomData,
        }
    }

    /// The value if it was sent, left in the slot (moving a large value
    /// out costs a copy); `None` when none is there.
    #[inline]
    pub fn value_mut(&mut self) -> Option<&mut T> {
        let slot = self.holder.slot();
        if !slot.closed.get() {
            // (No value yet: `send` may still write one.)
            return None;
        }
        // SAFETY: the slot is closed: `send` never writes `value` again,
        // and nothing but this receiver (borrowed mutably for as long as
        // the reference lives) reads or takes it.
        unsafe { (*slot.value.as_ptr()).as_mut() }
    }

    /// The value if it was sent; `Empty` while it may still be.
    #[inline]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let slot = self.holder.slot();
        match slot.value.take() {
            Some(v) => Ok(v),
            None if slot.closed.get() => Err(TryRecvError::Closed),
            None => Err(TryRecvError::Empty),
        }
    }
}

impl<T, H: Holder<T>> Drop for Receiver<T, H> {
    #[inline]
    fn drop(&mut self) {
        self.holder.slot().receiver.set(false);
    }
}

impl<T, H: Holder<T>> Future for Receiver<T, H> {
    type Output = Result<T, Closed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match this.try_recv() {
            Ok(v) => Poll::Ready(Ok(v)),
            Err(TryRecvError::Closed) => Poll::Ready(Err(Closed)),
            Err(TryRecvError::Empty) => {
                let slot = this.holder.slot();
                let w = match slot.waker.take() {
                    Some(w) if w.will_wake(cx.waker()) => w,
                    _ => cx.waker().clone(),
                };
                slot.waker.set(Some(w));
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll<T>(rx: &mut Receiver<T>, count: &Arc<Count>) -> Poll<Result<T, Closed>> {
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        Pin::new(rx).poll(&mut cx)
    }

    fn counter() -> Arc<Count> {
        Arc::new(Count(AtomicUsize::new(0)))
    }

    fn channel<T>() -> (Rc<Slot<T>>, Receiver<T>) {
        let slot = Rc::new(Slot::new());
        (slot.clone(), Receiver::new(slot))
    }

    #[test]
    fn send_then_try_recv() {
        let (tx, mut rx) = channel();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert!(tx.send(7).is_ok());
        assert_eq!(rx.try_recv(), Ok(7));
        // Taken once; nothing more comes.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    }

    #[test]
    fn value_in_place_and_sent_once() {
        let (tx, mut rx) = channel();
        assert_eq!(rx.value_mut(), None);
        assert!(tx.send(vec![1]).is_ok());
        // Closed: a second value is refused.
        assert_eq!(tx.send(vec![2]), Err(vec![2]));
        rx.value_mut().expect("sent").push(3);
        assert_eq!(rx.try_recv(), Ok(vec![1, 3]));
        assert_eq!(rx.value_mut(), None);
    }

    #[test]
    fn closed_without_a_value() {
        let (tx, mut rx) = channel::<u8>();
        tx.close();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
        assert_eq!(poll(&mut rx, &counter()), Poll::Ready(Err(Closed)));
    }

    #[test]
    fn dropped_receiver_refuses_the_value() {
        let (tx, rx) = channel();
        assert!(tx.has_receiver());
        drop(rx);
        assert!(!tx.has_receiver());
        assert_eq!(tx.send(3), Err(3));
    }

    #[test]
    fn await_is_woken_by_a_later_send() {
        let (tx, mut rx) = channel();
        let count = counter();
        assert_eq!(poll(&mut rx, &count), Poll::Pending);
        assert_eq!(poll(&mut rx, &count), Poll::Pending);
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        assert!(tx.send("head").is_ok());
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll(&mut rx, &count), Poll::Ready(Ok("head")));
    }

    #[test]
    fn await_is_woken_by_close() {
        let (tx, mut rx) = channel::<u8>();
        let count = counter();
        assert_eq!(poll(&mut rx, &count), Poll::Pending);
        tx.close();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(poll(&mut rx, &count), Poll::Ready(Err(Closed)));
    }

    #[test]
    fn await_in_a_runtime() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let local = tokio::task::LocalSet::new();
        let got = local.block_on(&rt, async {
            let (tx, rx) = channel();
            tokio::task::spawn_local(async move {
                tokio::task::yield_now().await;
                let _ = tx.send(42u32);
            });
            rx.await
        });
        assert_eq!(got, Ok(42));
    }
}
