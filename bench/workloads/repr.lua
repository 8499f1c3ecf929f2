-- repr(x): a float printed as Kith and Python print it (the shortest round-tripping
-- digits; plain notation for 1e-4 <= |x| < 1e16), shared by the Lua ports here.
return function(x)
  local s
  for p = 1, 17 do
    s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then break end
  end
  local a = math.abs(x)
  if a >= 1e-4 and a < 1e16 and s:find("e") then      -- plain notation, as Python's repr
    local mant, exp = s:match("^(-?[%d.]+)e([-+]%d+)$")
    local digits = mant:gsub("[-.]", "")
    s = string.format("%." .. math.max(0, #digits - 1 - tonumber(exp)) .. "f", x)
  end
  if not s:find("[.en]") then s = s .. ".0" end
  return s
end
