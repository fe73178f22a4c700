# A Rack test service for perflab's pre-fork acceptance tests, served by
# puma -w 2 (Debian's puma) or rackup. Planted cost, in the application's own
# code: GET /quote builds a price table of 300 rows in pure Ruby per request
# (PriceBook#build_table). GET /healthz answers ok.
require_relative "app"
run QuoteApp.new
