//! Every Chromium a test starts is closed when its `Browser` is dropped, the
//! test passed or panicked (issue 67: one run of the e2e suite had left six
//! headless browsers, about 60 processes, running after it ended).

use std::path::PathBuf;

use vram_e2e::{processes_using_profile, Browser, StaticServer, TempDir};

/// A one-line page: these tests need a browser, not the calculator.
fn blank_site() -> (TempDir, StaticServer) {
    let site = TempDir::new("vram-e2e-blank-site");
    std::fs::write(
        site.0.join("index.html"),
        "<!doctype html><title>blank</title><p>blank</p>",
    )
    .expect("the blank page is written");
    let server = StaticServer::start(site.0.clone());
    (site, server)
}

#[tokio::test]
async fn a_browser_dropped_after_its_test_leaves_no_process() {
    let (_site, server) = blank_site();
    let browser = Browser::start_on(server).await;
    browser
        .client
        .goto(&browser.server.url("/"))
        .await
        .expect("the blank page loads");
    let profile = browser.profile().to_path_buf();
    let running = processes_using_profile(&profile);
    assert!(
        !running.is_empty(),
        "the session's Chromium is found by its profile {}",
        profile.display()
    );
    // Dropped without `close`: the guard alone must end it.
    drop(browser);
    let left = processes_using_profile(&profile);
    assert!(left.is_empty(), "left running: {left:?} of {running:?}");
    assert!(!profile.exists(), "the profile folder is removed");
}

#[tokio::test]
async fn a_browser_whose_test_panics_leaves_no_process() {
    let (_site, server) = blank_site();
    let (sender, receiver) = tokio::sync::oneshot::channel::<PathBuf>();
    let test = tokio::spawn(async move {
        let browser = Browser::start_on(server).await;
        let _ = sender.send(browser.profile().to_path_buf());
        panic!("a failing test, its browser still open");
    });
    let outcome = test.await;
    assert!(outcome.is_err_and(|e| e.is_panic()), "the task panicked");
    let profile = receiver
        .await
        .expect("the profile was sent before the panic");
    let left = processes_using_profile(&profile);
    assert!(left.is_empty(), "left running after a panic: {left:?}");
}
