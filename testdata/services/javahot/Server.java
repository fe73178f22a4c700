// A Java test service for perflab, JDK only, started with
// `java Server.java --addr HOST:PORT` (single-file source launch). Planted
// cost, in the application's own code: GET /rank runs Server.rankItems, a
// pure-Java scoring and sort of 20000 items per request. GET /healthz
// answers ok.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

public class Server {
    static String rankItems() {
        long[] scores = new long[20000];
        for (int i = 0; i < scores.length; i++) {
            long s = 0;
            for (int k = 1; k < 40; k++) {
                s += (long) (i * k) % 7 * k;
            }
            scores[i] = s * 100000 + i;
        }
        Arrays.sort(scores);
        StringBuilder b = new StringBuilder();
        for (int i = scores.length - 1; i >= scores.length - 20; i--) {
            b.append(scores[i] % 100000).append(',');
        }
        return b.toString();
    }

    static void reply(HttpExchange ex, String body) throws IOException {
        byte[] out = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }

    public static void main(String[] args) throws IOException {
        String addr = "127.0.0.1:8080";
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--addr")) {
                addr = args[i + 1];
            }
        }
        int colon = addr.lastIndexOf(':');
        HttpServer server = HttpServer.create(new InetSocketAddress(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1))), 64);
        server.createContext("/rank", ex -> reply(ex, rankItems()));
        server.createContext("/healthz", ex -> reply(ex, "ok\n"));
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        server.start();
        System.out.println("listening on http://" + addr);
    }
}
