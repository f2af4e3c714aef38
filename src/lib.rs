//! The app's library: what the `koanscope` commands share beyond one command, and what the
//! end-to-end tests drive directly. Today: the live pipeline (frames → vision → tracker → the
//! window's feed) and the rule engine's services for the window.

pub mod live;
