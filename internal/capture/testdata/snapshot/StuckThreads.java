import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

// StuckThreads starts three threads that wait for a monitor another
// thread holds for ever, and one that reads a socket nobody writes to;
// then it prints "ready" and sleeps (at most a minute).
public class StuckThreads {
    static final Object lock = new Object();

    static void hold() throws InterruptedException {
        synchronized (lock) {
            Thread.sleep(60_000);
        }
    }

    static void take() {
        synchronized (lock) {
            System.out.println("got the lock");
        }
    }

    static void readPeer(Socket s) throws Exception {
        InputStream in = s.getInputStream();
        in.read();
    }

    public static void main(String[] args) throws Exception {
        Thread holder = new Thread(() -> {
            try {
                hold();
            } catch (InterruptedException e) {
            }
        }, "holder");
        holder.start();
        while (holder.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(10);
        }
        for (int i = 0; i < 3; i++) {
            new Thread(StuckThreads::take, "worker-" + i).start();
        }
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Socket conn = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        new Thread(() -> {
            try {
                readPeer(conn);
            } catch (Exception e) {
            }
        }, "reader").start();
        System.out.println("ready");
        Thread.sleep(60_000);
    }
}
