//! libFuzzer's input to [`bt_arena_fuzz::pgn`] (see fuzz/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bt_arena_fuzz::pgn(data);
});
