"""Everything shown in a terminal: cards, activity lines, `/mcp`, `/context`; all wording and all
sanitizing of third-party text. Imports agent, core and mcp's plain data (gates, config) only."""
