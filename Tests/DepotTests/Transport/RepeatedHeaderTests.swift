import Depot
import DepotTesting
import Foundation
import Logging
import Testing

@Suite struct RepeatedHeaderTests {
    static let links = [#"</messages?page=2>; rel="next""#, #"</messages?page=9>; rel="last""#]
    static let cookies = ["a=1; Path=/; HttpOnly", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"]

    /// Two `Link` and two `Set-Cookie` fields, interleaved with another field.
    static var repeatedFields: HTTPFields {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: links[0]))
        fields.append(HTTPField(name: .setCookie, value: cookies[0]))
        fields.append(HTTPField(name: HTTPField.Name("X-Trace")!, value: "t1"))
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: links[1]))
        fields.append(HTTPField(name: .setCookie, value: cookies[1]))
        return fields
    }

    @Test("two Link and two Set-Cookie fields arrive in order", arguments: Transport.available)
    func repeatedResponseFields(transport: Transport) async throws {
        try await withStubServer { server in
            // Given
            server.route(.get, "/links", response: .json(["ok": true], headers: Self.repeatedFields))
            let session = transport.session(url: server.url)
            // When
            let response = try await session.send(NetworkRequest(method: .get, path: "links"))
            // Then
            switch transport {
            case .asyncHTTPClient:
                #expect(response.headerValues("Link") == Self.links)
                #expect(response.headerValues("set-cookie") == Self.cookies)
                let names: Set<String> = ["link", "set-cookie", "x-trace"]
                #expect(
                    response.headers.filter { names.contains($0.name.canonicalName) }.map(\.value)
                        == Self.repeatedFields.map(\.value)
                )
            case .urlSession:
                // URLSession keeps one value per name: FoundationNetworking joins them with ", ".
                #expect(response.headerValues("link") == [Self.links.joined(separator: ", ")])
                #expect(response.headerValues("Set-Cookie") == [Self.cookies.joined(separator: ", ")])
            }
            #expect(response.header("LINK") == response.headerValues("link").first)
            #expect(response.header("x-trace") == "t1")
        }
    }
}

extension RepeatedHeaderTests {
    @Test("a non-2xx answer keeps its repeated fields in DepotError.responseHeaders", arguments: Transport.available)
    func repeatedFieldsInError(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/links", response: .json(["error": "busy"], status: 503, headers: Self.repeatedFields))
            let session = transport.session(url: server.url)
            let error = await #expect(throws: DepotError.self) {
                try await session.send(NetworkRequest(method: .get, path: "links"))
            }
            let expected = transport == .asyncHTTPClient ? Self.links : [Self.links.joined(separator: ", ")]
            #expect(error?.responseHeaders.values(for: "LINK") == expected)
            #expect(error?.responseHeaders["link"] == expected.first)
            #expect(error?.responseHeaders["X-Trace"] == "t1")
        }
    }

    @Test("repeated request fields reach the server in order", arguments: Transport.available)
    func repeatedRequestFields(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/tags", response: .empty())
            let tag = HTTPField.Name("X-Tag")!
            var headers = HTTPFields()
            headers.append(HTTPField(name: tag, value: "one"))
            headers.append(HTTPField(name: tag, value: "two"))
            let session = transport.session(url: server.url)
            _ = try await session.send(NetworkRequest(method: .get, path: "tags", headers: headers))
            let recorded = try #require(server.requests.last)
            switch transport {
            case .asyncHTTPClient:
                #expect(recorded.headerValues("x-tag") == ["one", "two"])
            case .urlSession:
                // URLRequest keeps one value per name: addValue joins repeats with ",".
                #expect(recorded.headerValues("x-tag") == ["one,two"])
            }
            #expect(recorded.header("X-TAG") == recorded.headerValues("x-tag").first)
        }
    }

    @Test("every repeated Cookie and Set-Cookie value is redacted in the logs", arguments: Transport.available)
    func repeatedSecretsRedacted(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/links", response: .json(["ok": true], headers: Self.repeatedFields))
            let capture = LogCapture()
            var logger = Logger(label: "test") { _ in CapturingHandler(capture: capture) }
            logger.logLevel = .debug
            var headers = HTTPFields()
            headers.append(HTTPField(name: .cookie, value: "first=secret-one"))
            headers.append(HTTPField(name: .cookie, value: "second=secret-two"))
            headers.append(HTTPField(name: .authorization, value: "Bearer secret-three"))
            let session = transport.session(
                url: server.url, configuration: SessionConfiguration(headers: headers, logger: logger))
            _ = try await session.send(NetworkRequest(method: .get, path: "links"))
            let text = capture.all.joined(separator: "\n")
            #expect(text.contains("<redacted>") && text.contains("t1"))
            for secret in ["secret-one", "secret-two", "secret-three", "a=1", "b=2"] {
                #expect(!text.contains(secret), "\(secret) reached the log")
            }
            let redacted = RequestPipeline.redacted(Self.repeatedFields)
            #expect(redacted.map(\.0) == ["Link", "Set-Cookie", "X-Trace", "Link", "Set-Cookie"])
            #expect(redacted.filter { $0.0 == "Set-Cookie" }.allSatisfy { $0.1 == "<redacted>" })
            #expect(server.requests.last?.headerValues("cookie").joined(separator: "; ").contains("secret-two") == true)
        }
    }

    @Test(
        "fields given as strings with CR, LF or NUL are refused before sending, wherever they come from",
        arguments: Transport.available)
    func injectionFromEverySource(transport: Transport) async throws {
        try await withStubServer { server in
            server.route(.get, "/x", response: .empty())
            let perRequest = transport.session(url: server.url)
            let configured = transport.session(
                url: server.url, configuration: SessionConfiguration(headers: ["X-Evil": "a\nInjected: yes"]))
            let intercepted = transport.session(
                url: server.url,
                configuration: SessionConfiguration(interceptors: [HeaderInterceptor(["X-Evil": "a\0b"])]))
            let attempts: [(any Networking, NetworkRequest)] = [
                (perRequest, NetworkRequest(method: .get, path: "x", headers: ["X-Evil": "a\r\nInjected: yes"])),
                (perRequest, NetworkRequest(method: .get, path: "x", headers: ["X-Evil\r\nInjected": "yes"])),
                (perRequest, try NetworkRequest(method: .post, path: "x", headers: ["X-Evil": "\r"], json: ["a": 1])),
                (configured, NetworkRequest(method: .get, path: "x")),
                (intercepted, NetworkRequest(method: .get, path: "x")),
            ]
            for (session, request) in attempts {
                let error = await #expect(throws: DepotError.self) { try await session.send(request) }
                #expect(error?.code == .invalidRequest)
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test("DepotError.Headers keeps order and repeats and looks names up without regard to case")
    func depotErrorHeaders() {
        var headers: DepotError.Headers = ["Link": "a", "X-Trace": "t"]
        headers.append(name: "link", value: "b")
        #expect(headers.map(\.name) == ["Link", "X-Trace", "link"])
        #expect(headers["LINK"] == "a")
        #expect(headers.values(for: "Link") == ["a", "b"])
        #expect(headers["missing"] == nil && headers.values(for: "missing").isEmpty)
        #expect(DepotError.Headers(Self.repeatedFields).values(for: "set-cookie") == Self.cookies)
    }
}
