// A Java test service for perflab, JDK only, compiled and started with
//
//	javac -d DIR Server.java && java -cp DIR Server --addr HOST:PORT [--mode buggy|fixed]
//
// GET /summarize?doc=N counts, in review N (0 to 63), the mentions of the
// shop's 20000 products ("SKU-" and a name). Planted cost, in the
// application's own code: Server.summarize builds the products' regular
// expression (some 240 KB) and compiles it with
// java.util.regex.Pattern.compile on every call; --mode fixed compiles it
// once (Server.PRODUCTS) and only matches. Both answer the same. GET
// /healthz answers ok. Responses go out with TCP_NODELAY (see main).
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Server {
    static final String[] SYLLABLES = {"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po"};
    static final List<String> WORDS = productWords();
    static final String[] DOCS = reviews();
    static final Pattern PRODUCTS = Pattern.compile(productRegex());
    static boolean buggy = true;

    // productWords returns the 20000 products' names, five syllables each.
    static List<String> productWords() {
        List<String> w = new ArrayList<>();
        for (int i = 0; i < 20000; i++) {
            w.add(SYLLABLES[i % 10] + SYLLABLES[i / 10 % 10] + SYLLABLES[i / 100 % 10] + SYLLABLES[i / 1000 % 10] + SYLLABLES[i / 10000]);
        }
        return w;
    }

    static String productRegex() {
        return "SKU-(?:" + String.join("|", WORDS) + ")\\b";
    }

    // reviews returns 64 short reviews mentioning a few product words each.
    static String[] reviews() {
        String[] docs = new String[64];
        for (int d = 0; d < docs.length; d++) {
            StringBuilder b = new StringBuilder();
            for (int s = 0; s < 3; s++) {
                b.append("I bought SKU-").append(WORDS.get((d * 37 + s * 7001) % WORDS.size()))
                    .append(" last week and it works better than my old one. ");
            }
            docs[d] = b.toString();
        }
        return docs;
    }

    // summarize counts the product words in doc, as "word=count" lines.
    static String summarize(String doc) {
        Pattern p = buggy ? Pattern.compile(productRegex()) : PRODUCTS;
        TreeMap<String, Integer> counts = new TreeMap<>();
        Matcher m = p.matcher(doc);
        while (m.find()) {
            counts.merge(m.group(), 1, Integer::sum);
        }
        StringBuilder out = new StringBuilder();
        counts.forEach((w, n) -> out.append(w).append('=').append(n).append('\n'));
        return out.toString();
    }

    static void reply(HttpExchange ex, int code, String body) throws IOException {
        byte[] out = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(code, out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
    }

    static int docIndex(String query) {
        if (query == null || !query.startsWith("doc=")) {
            return -1;
        }
        try {
            int i = Integer.parseInt(query.substring(4));
            return i < DOCS.length ? i : -1;
        } catch (NumberFormatException e) {
            return -1;
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
            System.err.println("javapattern: --mode " + mode + ": want buggy or fixed");
            System.exit(2);
        }
        buggy = mode.equals("buggy");
        // No Nagle stall (javanagle's subject): each response would wait for
        // the client's delayed ACK, ~40 ms, and the load could not reach the CPU.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int colon = addr.lastIndexOf(':');
        HttpServer server = HttpServer.create(new InetSocketAddress(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1))), 64);
        server.createContext("/summarize", ex -> {
            int d = docIndex(ex.getRequestURI().getRawQuery());
            if (d < 0) {
                reply(ex, 400, "want /summarize?doc=N, N from 0 to " + (DOCS.length - 1) + "\n");
            } else {
                reply(ex, 200, summarize(DOCS[d]));
            }
        });
        server.createContext("/healthz", ex -> reply(ex, 200, "ok\n"));
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        InetSocketAddress bound = server.getAddress();
        System.out.println("listening on http://" + bound.getHostString() + ":" + bound.getPort());
    }
}
