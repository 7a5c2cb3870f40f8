extension DeskPages {
    /// A page for a status the desk answers with (403, 404, 409…); `context` nil when no one
    /// is signed in (then the way on is the login page).
    public static func error(status: Int, message: String, context: DeskPageContext?) -> String {
        PageFrame.render(title: "\(status) \(reason(status))", context: context, section: .none) { w in
            w.element("section", [.id("error"), .class("card error"), .attr("data-status", String(status))]) { w in
                w.element("h1", text: "\(status) \(reason(status))")
                w.element("p", [.class("message"), .attr("role", "alert")], text: message)
                if context == nil {
                    w.element("a", [.href(DeskURL("/login"))], text: "Log in")
                } else {
                    w.element("a", [.id("back-link"), .href(DeskURL("/queue"))], text: "Back to the queue")
                }
            }
        }
    }

    /// The words HTTP gives each status the desk answers with.
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
