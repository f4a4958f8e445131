//! Every invariant after every operation of a random sequence.

use proptest::prelude::*;

use super::{
    ops::{op, setup},
    pt_config,
    world::World,
};

proptest! {
    #![proptest_config(pt_config(3000))]

    #[test]
    fn controllers_keep_their_invariants(
        setup in setup(),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let mut w = World::new(&setup);
        let mut prev = w.prev();
        w.check_invariants(&prev);
        for op in &ops {
            w.apply(op);
            w.check_invariants(&prev);
            prev = w.prev();
        }
    }
}
