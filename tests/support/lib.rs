//! What the end-to-end tests stand on: the release build of the page served from
//! 127.0.0.1, a chromedriver of its own, and a headless Chromium session.
//!
//! The page must have been built first (`trunk build --release`, as
//! `scripts/test` does); `VRAM_DIST` points elsewhere than `dist/` if needed.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// How long any wait for the page may take before the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// The built page, served over HTTP on a free port of 127.0.0.1 until dropped.
pub struct StaticServer {
    address: SocketAddr,
    server: std::sync::Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StaticServer {
    /// Serves the files under `root`.
    pub fn start(root: PathBuf) -> StaticServer {
        let server =
            std::sync::Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let address = server.server_addr().to_ip().expect("an IP address");
        let serving = server.clone();
        let thread = std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let response = respond(&root, request.url());
                let _ = request.respond(response);
            }
        });
        StaticServer {
            address,
            server,
            thread: Some(thread),
        }
    }

    /// The URL of `path_and_query` (which starts with `/`) on this server.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{}", self.address, path_and_query)
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn respond(root: &Path, url: &str) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() || relative.ends_with('/') {
        format!("{relative}index.html")
    } else {
        relative.to_string()
    };
    let safe = Path::new(&relative)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    let file = root.join(&relative);
    match std::fs::read(&file) {
        Ok(body) if safe => {
            let content_type = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("wasm") => "application/wasm",
                Some("css") => "text/css; charset=utf-8",
                Some("svg") => "image/svg+xml",
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            let header =
                tiny_http::Header::from_bytes("Content-Type", content_type).expect("valid header");
            tiny_http::Response::from_data(body).with_header(header)
        }
        _ => tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404),
    }
}

/// The folder of the release build.
pub fn dist_dir() -> PathBuf {
    let dist = std::env::var_os("VRAM_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist"));
    assert!(
        dist.join("index.html").is_file(),
        "no built page in {}: run `trunk build --release` first (scripts/test does)",
        dist.display()
    );
    dist
}

/// A chromedriver process on a free port, killed when dropped.
pub struct Chromedriver {
    child: Child,
    port: u16,
}

impl Chromedriver {
    /// Starts `chromedriver` from PATH (or `CHROMEDRIVER`) and waits until it listens.
    pub fn start() -> Chromedriver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let child = Command::new(&program)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program} (install chromium-driver): {e}"));
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < TIMEOUT,
                "chromedriver did not listen on port {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Chromedriver { child, port }
    }
}

impl Drop for Chromedriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A served page and a headless Chromium session to drive it.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    /// The server of the built page.
    pub server: StaticServer,
    _driver: Chromedriver,
    _profile: TempDir,
}

impl Browser {
    /// Serves the release build and opens a headless Chromium on it.
    pub async fn start() -> Browser {
        let server = StaticServer::start(dist_dir());
        let driver = Chromedriver::start();
        let profile = TempDir::new("vram-e2e-profile");
        let mut args = vec![
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--no-first-run".into(),
            "--window-size=1280,1000".into(),
            format!("--user-data-dir={}", profile.0.display()),
        ];
        args.sort();
        let mut options = json!({ "args": args });
        if let Ok(binary) = std::env::var("CHROMIUM") {
            options["binary"] = json!(binary);
        } else if Path::new("/usr/bin/chromium").exists() {
            options["binary"] = json!("/usr/bin/chromium");
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), options);
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await
            .expect("a WebDriver session in headless Chromium");
        Browser {
            client,
            server,
            _driver: driver,
            _profile: profile,
        }
    }

    /// Opens the page with `query` (empty, or starting with `?`) and waits until
    /// its results are on screen.
    pub async fn open(&self, query: &str) {
        self.client
            .goto(&self.server.url(&format!("/{query}")))
            .await
            .expect("page loads");
        self.client
            .wait()
            .at_most(TIMEOUT)
            .for_element(Locator::Css("[data-testid='mem-total-zero3'][data-value]"))
            .await
            .expect("the results appear");
    }

    /// The unrounded figure of `data-testid=id`.
    pub async fn figure(&self, id: &str) -> f64 {
        let text = self.attribute(id, "data-value").await;
        text.parse()
            .unwrap_or_else(|_| panic!("{id}: data-value {text:?} is not a number"))
    }

    /// An attribute of the element with `data-testid=id`.
    pub async fn attribute(&self, id: &str, name: &str) -> String {
        let element = self
            .client
            .find(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap_or_else(|e| panic!("no element {id}: {e}"));
        element
            .attr(name)
            .await
            .expect("attribute read")
            .unwrap_or_else(|| panic!("{id} has no {name}"))
    }

    /// The text of the element with `data-testid=id`.
    pub async fn text(&self, id: &str) -> String {
        let element = self
            .client
            .find(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap_or_else(|e| panic!("no element {id}: {e}"));
        element.text().await.expect("text read")
    }

    /// Waits until the address bar's query contains `needle`, and returns the query.
    pub async fn wait_for_query(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let url = self.client.current_url().await.expect("current URL");
            let query = url.query().unwrap_or_default().to_string();
            if query.contains(needle) {
                return query;
            }
            assert!(
                started.elapsed() < TIMEOUT,
                "the link never contained {needle:?}: {query}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs `script` in the page and returns its result.
    pub async fn eval(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, vec![])
            .await
            .expect("script runs")
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}

/// A temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    fn new(prefix: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("a temporary folder");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
