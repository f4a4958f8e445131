//! Runs independent jobs on a few threads with results in job order, so
//! what a command prints never depends on the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `job(i)` once for every index in `order` (a permutation of `0..len`
/// that only sets the schedule) on up to `threads` threads (at least 1);
/// returns the results by index, `None` where a worker thread died.
pub fn run_indexed<T: Send>(
    len: usize,
    order: &[usize],
    threads: usize,
    job: &(dyn Fn(usize) -> T + Sync),
) -> Vec<Option<T>> {
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, len.max(1));
    let finished: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        done.push((i, job(i)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let mut slots: Vec<Option<T>> = (0..len).map(|_| None).collect();
    for (i, result) in finished.into_iter().flatten() {
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(result);
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::run_indexed;

    #[test]
    fn results_come_back_in_index_order_whatever_the_threads() {
        let order: Vec<usize> = (0..100).rev().collect();
        for threads in [1, 2, 7] {
            let out = run_indexed(100, &order, threads, &|i| i * i);
            let want: Vec<Option<usize>> = (0..100).map(|i| Some(i * i)).collect();
            assert_eq!(out, want);
        }
        assert!(run_indexed::<u8>(0, &[], 4, &|_| 0).is_empty());
    }
}
