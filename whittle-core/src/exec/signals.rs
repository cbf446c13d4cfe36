//! Stop signals (SIGINT, SIGTERM, SIGHUP): one handler for the whole process, installed before
//! anything needs cleaning up. A signal only records itself and runs the actions that whoever
//! is running registered (stop the session, leave the UI), so every exit goes through the
//! normal path: running tests killed, output written, scratch directory and lock removed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

type SignalAction = Arc<dyn Fn() + Send + Sync>;

static RECEIVED: AtomicUsize = AtomicUsize::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(0);
static ACTIONS: Mutex<Vec<(u64, SignalAction)>> = Mutex::new(Vec::new());
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

fn actions() -> MutexGuard<'static, Vec<(u64, SignalAction)>> {
    ACTIONS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Installs the handler (once per process; later calls return the first result).
pub fn install() -> Result<(), String> {
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                RECEIVED.fetch_add(1, Ordering::SeqCst);
                let registered: Vec<SignalAction> =
                    actions().iter().map(|(_, action)| action.clone()).collect();
                for action in registered {
                    action();
                }
            })
            .map_err(|error| error.to_string())
        })
        .clone()
}

/// How many stop signals this process has received.
pub fn received() -> usize {
    RECEIVED.load(Ordering::SeqCst)
}

/// Runs `action` on every stop signal until the returned guard is dropped. When a signal has
/// arrived already, `action` runs at once: a signal that comes before the action is registered
/// is not lost.
pub fn on_signal(action: impl Fn() + Send + Sync + 'static) -> Registration {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let action: SignalAction = Arc::new(action);
    actions().push((id, action.clone()));
    if received() > 0 {
        action();
    }
    Registration(id)
}

/// Keeps an action registered; dropping it removes the action.
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        actions().retain(|(id, _)| *id != self.0);
    }
}
