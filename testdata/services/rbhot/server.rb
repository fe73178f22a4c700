#!/usr/bin/env ruby
# frozen_string_literal: true

# rbhot: a Ruby test service with a planted cost modelled on a case study:
# a Hashie::Mash-like settings object built on every request.
#
# GET /price?sku=N looks up a price in a settings tree of 200 regions x 10
# entries. In --mode buggy each request wraps the whole tree in a new Mash
# (Mash#initialize converts every nested hash, key by key, into Mash
# objects, as Hashie's does: deep_update, convert_key, convert_value,
# custom_writer and respond_to? share the work, none of them the culprit on
# its own) to read one value; in --mode fixed the Mash is built once at
# start-up. Both answer the same price. GET /healthz answers "ok".
#
# Usage: server.rb [--addr HOST:PORT] [--mode buggy|fixed]
# Prints "listening on http://HOST:PORT" once it listens; stops on SIGTERM
# or SIGINT. Standard library only: a small HTTP/1.1 keep-alive server on
# TCPServer, one thread per connection.

require 'optparse'
require 'socket'

# Mash wraps a hash: string or symbol keys, nested hashes converted to Mash
# on construction, values read as methods (settings.region_7.sku_3).
class Mash
  def initialize(hash = {})
    @table = {}
    deep_update(hash)
  end

  def deep_update(hash)
    hash.each_pair do |key, value|
      key = convert_key(key)
      if respond_to?(key) && @table[key].is_a?(Mash) && value.is_a?(Hash)
        @table[key].deep_update(value)
      else
        custom_writer(key, convert_value(value))
      end
    end
    self
  end

  def convert_key(key)
    key.to_s.downcase
  end

  def convert_value(value)
    case value
    when Hash then Mash.new(value)
    when Array then value.map { |v| convert_value(v) }
    else value
    end
  end

  def custom_writer(key, value)
    @table[key] = value
  end

  def [](key)
    @table[convert_key(key)]
  end

  def method_missing(name, *args)
    key = name.to_s
    return @table[key] if @table.key?(key)

    super
  end

  def respond_to_missing?(name, include_private = false)
    @table.key?(name.to_s) || super
  end
end

SETTINGS = (0...200).to_h do |r|
  ["Region_#{r}", (0...10).to_h { |s| ["SKU_#{s}", { 'Price' => (r * 10 + s) * 3 + 7, 'Currency' => 'EUR' }] }]
end

# Prices answers /price from the settings, wrapped per request (buggy) or once.
class Prices
  def initialize(buggy)
    @buggy = buggy
    @settings = Mash.new(SETTINGS) unless buggy
  end

  def price(sku)
    settings = @buggy ? Mash.new(SETTINGS) : @settings
    entry = settings["region_#{sku % 200}"]["sku_#{sku % 10}"]
    "#{entry.price} #{entry.currency}\n"
  end
end

# serve answers one connection's requests until it closes or asks to.
def serve(conn, prices)
  loop do
    line = conn.gets("\r\n", 8192) or break
    method, target, = line.split(' ', 3)
    keep = true
    length = 0
    while (h = conn.gets("\r\n", 8192)) && h != "\r\n"
      name, value = h.split(':', 2)
      case name.downcase
      when 'connection' then keep = false if value.strip.casecmp?('close')
      when 'content-length' then length = value.to_i
      end
    end
    break if h.nil?

    conn.read(length) if length.positive?
    code, body = route(method, target, prices)
    conn.write("HTTP/1.1 #{code}\r\nContent-Type: text/plain\r\nContent-Length: #{body.bytesize}\r\n" \
               "#{keep ? '' : "Connection: close\r\n"}\r\n#{body}")
    break unless keep
  end
rescue IOError, SystemCallError
  nil
ensure
  conn.close
end

def route(method, target, prices)
  path, query = target.to_s.split('?', 2)
  return ['405 Method Not Allowed', "GET only\n"] unless method == 'GET'

  case path
  when '/price'
    sku = query.to_s[/(?:\A|&)sku=(\d+)/, 1]
    return ['400 Bad Request', "sku: want a non-negative integer\n"] unless sku

    ['200 OK', prices.price(sku.to_i)]
  when '/healthz' then ['200 OK', "ok\n"]
  else ['404 Not Found', "not found\n"]
  end
end

def main(argv)
  addr = '127.0.0.1:8080'
  mode = 'buggy'
  OptionParser.new do |o|
    o.on('--addr HOST:PORT', '-a', 'listen on HOST:PORT (port 0 picks one)') { |v| addr = v }
    o.on('--mode MODE', %w[buggy fixed], 'buggy (Mash per request) or fixed') { |v| mode = v }
  end.parse!(argv.map { |a| a.sub(/\A-(addr|mode)\b/, '--\1') })
  host, _, port = addr.rpartition(':')
  server = TCPServer.new(host, Integer(port))
  prices = Prices.new(mode == 'buggy')
  # A signal writes to a pipe the accept loop also waits on.
  wake_r, wake_w = IO.pipe
  %w[TERM INT].each { |sig| Signal.trap(sig) { wake_w.write_nonblock('.', exception: false) } }
  $stdout.puts "listening on http://#{host}:#{server.addr[1]}"
  $stdout.flush
  loop do
    ready, = IO.select([server, wake_r])
    break if ready.include?(wake_r)

    conn = server.accept_nonblock(exception: false)
    Thread.new(conn) { |c| serve(c, prices) } unless conn == :wait_readable
  end
  server.close
  0
end

exit(main(ARGV)) if $PROGRAM_NAME == __FILE__
