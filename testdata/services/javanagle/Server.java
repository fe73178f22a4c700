// A Java test service for perflab, JDK only, started with
// `java Server.java --addr HOST:PORT [--mode buggy|fixed]` (single-file
// source launch). A com.sun.net.httpserver.HttpServer with the JDK's
// default settings, as deployed: Nagle's algorithm on (no TCP_NODELAY).
// GET /price?sku=N answers a small JSON body written after
// sendResponseHeaders has sent the headers in a packet of their own: the
// body waits until the client acknowledges the headers, and the client
// delays that acknowledgement (about 40 ms on Linux), so every response
// takes ~40 ms although the handler works for microseconds. The fix is
// `java -Dsun.net.httpserver.nodelay=true Server.java`; --mode fixed sets
// that property itself. GET /healthz answers ok.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

public class Server {
    static String price(String query) {
        long sku = -1;
        if (query != null && query.startsWith("sku=")) {
            try {
                sku = Long.parseLong(query.substring(4));
            } catch (NumberFormatException e) {
                sku = -1;
            }
        }
        if (sku < 0) {
            return null;
        }
        long cents = 500 + sku * 7919 % 10000;
        return "{\"sku\":" + sku + ",\"price\":\"" + cents / 100 + "." + String.format("%02d", cents % 100) + " EUR\"}\n";
    }

    static void reply(HttpExchange ex, int code, String body) throws IOException {
        byte[] out = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, out.length); // the headers leave in a packet of their own
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out); // the body: held back by Nagle until the headers are acknowledged
        }
    }

    public static void main(String[] args) throws IOException {
        String addr = "127.0.0.1:8080";
        String mode = "buggy";
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--addr")) {
                addr = args[i + 1];
            } else if (args[i].equals("--mode")) {
                mode = args[i + 1];
            }
        }
        if (!mode.equals("buggy") && !mode.equals("fixed")) {
            System.err.println("javanagle: --mode " + mode + ": want buggy or fixed");
            System.exit(2);
        }
        if (mode.equals("fixed")) {
            System.setProperty("sun.net.httpserver.nodelay", "true"); // read when the server starts
        }
        int colon = addr.lastIndexOf(':');
        HttpServer server = HttpServer.create(new InetSocketAddress(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1))), 64);
        server.createContext("/price", ex -> {
            String body = price(ex.getRequestURI().getRawQuery());
            if (body == null) {
                reply(ex, 400, "want /price?sku=N\n");
            } else {
                reply(ex, 200, body);
            }
        });
        server.createContext("/healthz", ex -> reply(ex, 200, "ok\n"));
        server.start();
        InetSocketAddress bound = server.getAddress();
        System.out.println("listening on http://" + bound.getHostString() + ":" + bound.getPort());
    }
}
