import Testing

@Suite("trellis nsm outside a session manager")
struct NSMCommandTests {
    @Test("without NSM_URL, nsm says a session manager starts it and exits 1")
    func noManager() throws {
        let result = try trellis(["nsm"], removing: ["NSM_URL"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("NSM_URL is not set") && result.stderr.contains("trellis run"), "\(result.stderr)")
    }

    @Test("an NSM_URL that is not osc.udp://HOST:PORT/ is named in the error")
    func badAddress() throws {
        for url in ["http://localhost:80/", "osc.udp://localhost/", "osc.tcp://localhost:1234/"] {
            let result = try trellis(["nsm"], environment: ["NSM_URL": url])
            #expect(result.status == 1)
            #expect(result.stderr.contains("\"\(url)\""), "\(url): \(result.stderr)")
        }
    }
}
