//! `fc-studies`: what the lab learns with `fc-lab`, kept out of the
//! product — the simulator held to real neqo ([`calibrate`]), the cells
//! where `default` trails measured again at nearby RTTs ([`spread`]), the
//! credit given before the rate is known ([`blind_start`]), the paths whose
//! delay varies ([`delay`]), and the
//! generator that writes every measured number of the README and `docs/`
//! ([`readme`]).

#![forbid(unsafe_code)]

pub mod blind_start;
pub mod calibrate;
pub mod cli;
pub mod delay;
pub mod readme;
pub mod spread;
