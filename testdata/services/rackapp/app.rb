# The application of rackapp/config.ru: a quote endpoint whose cost is the
# application's own Ruby code.
class PriceBook
  def initialize(rows)
    @rows = rows
  end

  # build_table is the planted cost: string formatting and a running
  # checksum over every row, rebuilt on every request.
  def build_table
    acc = 7
    lines = Array.new(@rows) do |i|
      line = format("%05d|%-12s|%10.2f|%s", i, "item-#{i * 7 % 1000}", i * 3.14159, "x" * (i % 9))
      line.each_byte { |b| acc = (acc * 31 + b) & 0xFFFFFFFF }
      line
    end
    lines << format("checksum %08x", acc)
    lines.join("\n")
  end
end

class QuoteApp
  def call(env)
    case env["PATH_INFO"]
    when "/quote"
      [200, { "content-type" => "text/plain" }, [PriceBook.new(300).build_table]]
    when "/healthz"
      [200, { "content-type" => "text/plain" }, ["ok\n"]]
    else
      [404, { "content-type" => "text/plain" }, ["not found\n"]]
    end
  end
end
