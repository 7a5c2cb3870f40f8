extension DeskPages {
    /// `GET /login` (and a failed `POST /login`): the name typed is kept, the password never.
    public static func login(csrf: String, username: String?, error: String?) -> String {
        PageFrame.render(title: "Log in", context: nil, section: .none) { w in
            w.element("section", [.id("login"), .class("card login")]) { w in
                w.element("h1", text: "iapscreen desk")
                w.element("p", [.class("quiet")], text: "Sign in to work the flagged orders.")
                if let error, !error.isEmpty {
                    w.element("p", [.id("message"), .class("message"), .attr("role", "alert")], text: error)
                }
                w.postForm(DeskURL("/login"), csrf: csrf, [.id("login-form")]) { w in
                    w.labelled("User name", for: "username") { w in
                        w.void(
                            "input",
                            [
                                .attr("type", "text"), .attr("name", "username"), .id("username"),
                                .attr("value", username ?? ""), .attr("autocomplete", "username"),
                                .attr("autocapitalize", "none"), .attr("spellcheck", "false"), .flag("required"),
                                .flag("autofocus"),
                            ])
                    }
                    w.labelled("Password", for: "password") { w in
                        w.void(
                            "input",
                            [
                                .attr("type", "password"), .attr("name", "password"), .id("password"),
                                .attr("autocomplete", "current-password"), .flag("required"),
                            ])
                    }
                    w.button("Log in", [.class("primary")])
                }
            }
        }
    }
}
