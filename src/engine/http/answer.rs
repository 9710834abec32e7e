//! A single-threaded one-value channel for a response head (the
//! `Responder`'s answer to the connection): tokio's `oneshot` made for one
//! thread, without its atomics; both halves share one `Rc`.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

struct Slot<T> {
    value: Cell<Option<T>>,
    /// The sender is gone (after its value, if it sent one).
    closed: Cell<bool>,
    waker: Cell<Option<Waker>>,
}

/// The sending half: `send` at most once; dropping it unsent closes.
pub struct Sender<T>(Rc<Slot<T>>);

/// The receiving half: `try_recv`, or await the value (`Err(Closed)` once
/// the sender is gone without sending).
pub struct Receiver<T>(Rc<Slot<T>>);

/// The sender was dropped without a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryRecvError {
    /// Nothing yet; the sender may still send.
    Empty,
    /// The sender was dropped without a value.
    Closed,
}

pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Rc::new(Slot {
        value: Cell::new(None),
        closed: Cell::new(false),
        waker: Cell::new(None),
    });
    (Sender(slot.clone()), Receiver(slot))
}

impl<T> Sender<T> {
    /// Hands `value` to the receiver; gives it back when the receiver is gone.
    #[inline]
    pub fn send(self, value: T) -> Result<(), T> {
        if self.is_closed() {
            return Err(value);
        }
        // Empty: `send` takes the only sender. Forgetting the `None` spares
        // a call to its drop glue.
        let none = self.0.value.replace(Some(value));
        debug_assert!(none.is_none());
        std::mem::forget(none);
        // The drop marks the slot closed and wakes the receiver.
        Ok(())
    }

    /// The receiver is gone.
    #[inline]
    pub fn is_closed(&self) -> bool {
        Rc::strong_count(&self.0) == 1
    }
}

impl<T> Drop for Sender<T> {
    #[inline]
    fn drop(&mut self) {
        self.0.closed.set(true);
        if let Some(w) = self.0.waker.take() {
            w.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// The value if it was sent; `Empty` while the sender may still send.
    #[inline]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.0.value.take() {
            Some(v) => Ok(v),
            None if self.0.closed.get() => Err(TryRecvError::Closed),
            None => Err(TryRecvError::Empty),
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Closed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match this.try_recv() {
            Ok(v) => Poll::Ready(Ok(v)),
            Err(TryRecvError::Closed) => Poll::Ready(Err(Closed)),
            Err(TryRecvError::Empty) => {
                let slot = &this.0;
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

    #[test]
    fn send_then_try_recv() {
        let (tx, mut rx) = channel();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert!(tx.send(7).is_ok());
        assert_eq!(rx.try_recv(), Ok(7));
        // Taken once; the sender is gone.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    }

    #[test]
    fn dropped_sender_closes() {
        let (tx, mut rx) = channel::<u8>();
        drop(tx);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
        assert_eq!(poll(&mut rx, &counter()), Poll::Ready(Err(Closed)));
    }

    #[test]
    fn dropped_receiver_refuses_the_value() {
        let (tx, rx) = channel();
        assert!(!tx.is_closed());
        drop(rx);
        assert!(tx.is_closed());
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
    fn await_is_woken_by_drop() {
        let (tx, mut rx) = channel::<u8>();
        let count = counter();
        assert_eq!(poll(&mut rx, &count), Poll::Pending);
        drop(tx);
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
