import Foundation

/// A page of our own in a temporary directory, its behaviour in a script file beside it (as a
/// strict Content-Security-Policy wants): a name field and a button that greets it, and a line
/// that shows the keys pressed on the page.
struct TestPage {
    let directory: String

    static let html = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>WebDriver test page</title>
        <script src="page.js" defer></script></head>
        <body>
        <input id="name" type="text">
        <button id="greet" type="button">Greet</button>
        <p id="greeting" class="line"></p>
        <p id="keys" class="line"></p>
        </body></html>
        """

    static let script = """
        document.getElementById("greet").addEventListener("click", () => {
          const greeting = document.getElementById("greeting");
          greeting.textContent = "Hello, " + document.getElementById("name").value + "!";
          greeting.dataset.greeted = "yes";
        });
        document.addEventListener("keydown", (event) => {
          if (event.target instanceof HTMLInputElement) return;
          document.getElementById("keys").textContent += event.key === "Enter" ? "[Enter]" : event.key;
        });
        """

    init() throws {
        directory = NSTemporaryDirectory() + "iapscreen-webdriver-page-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.html.write(toFile: directory + "/page.html", atomically: true, encoding: .utf8)
        try Self.script.write(toFile: directory + "/page.js", atomically: true, encoding: .utf8)
    }

    var url: URL { URL(fileURLWithPath: directory + "/page.html") }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
