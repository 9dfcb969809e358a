-- wrk script for benchmarks/api_load.py: plays from a plan, each game's plays in order.
--
--   wrk ... -s benchmarks/plays.lua http://127.0.0.1:PORT -- PLAN_FILE
--
-- The plan file has one play per line: thread number, game id, token, JSON body (tab
-- separated), each game's plays in order. Each wrk thread takes its own games. A game is
-- busy from the moment its play is sent until the answer names it (every game view begins
-- with its id), so two connections never race in one game: every play states the version it
-- expects and should get 201. A thread that finds no game free sends nothing useful: it
-- counts it in `starved`, which done() reports (a plan too short for the run).

local threads = {}
local counter = 0

function setup(thread)
   thread:set("number", counter)
   counter = counter + 1
   table.insert(threads, thread)
end

local games = {}
local by_id = {}
local cursor = 0
starved = 0
played = 0

function init(args)
   for line in io.lines(args[1]) do
      local n, id, token, body = line:match("^(%d+)\t([^\t]+)\t([^\t]+)\t(.*)$")
      if tonumber(n) == number then
         local game = by_id[id]
         if game == nil then
            game = { id = id, plays = {}, next = 1, busy = false }
            by_id[id] = game
            table.insert(games, game)
         end
         table.insert(game.plays, { token = token, body = body })
      end
   end
end

function request()
   for _ = 1, #games do
      cursor = cursor % #games + 1
      local game = games[cursor]
      if not game.busy and game.next <= #game.plays then
         game.busy = true
         local play = game.plays[game.next]
         return wrk.format("POST", "/api/games/" .. game.id .. "/plays/", {
            ["Authorization"] = "Token " .. play.token,
            ["Content-Type"] = "application/json",
         }, play.body)
      end
   end
   starved = starved + 1
   return wrk.format("GET", "/api/health/")
end

function response(status, headers, body)
   local id = body:match('^{"id":"([^"]+)"')
   local game = id and by_id[id]
   if game then
      game.busy = false
      if status == 201 then
         game.next = game.next + 1
         played = played + 1
      end
   end
end

function done(summary, latency, requests)
   local starving, plays = 0, 0
   for _, thread in ipairs(threads) do
      starving = starving + thread:get("starved")
      plays = plays + thread:get("played")
   end
   io.write(string.format("plays accepted: %d\nrequests without a free game: %d\n", plays, starving))
end
