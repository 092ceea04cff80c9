"""Hand-labelled cases: the project's own test expectations plus tool-use style clauses.

today = 2026-11-22 (a Sunday).  Fields (omitted = not scored for that type):
  d     gold dates, ISO; "*-MM-DD" = a year-less date (any year accepted)
  dopt  dates that are acceptable but not required (periods like "this weekend")
  p     gold place names (cities, countries, states, regions)
  popt  acceptable-but-not-required places (venues, landmarks, state codes)
  q     gold quantities [(value, unit)], unit None for a bare number; numbers inside
        dates, clock times, ids and versions are not quantities
  c     gold conversions [(value, from_unit, to_unit)]
Units are canonical names (see units.py).
"""

WEEKEND = ["2026-11-21", "2026-11-22", "2026-11-28", "2026-11-29"]
NEXT_WEEK = [f"2026-11-{d}" for d in range(23, 31)] + [f"2026-12-0{d}" for d in range(1, 7)]

CASES = [
    # --- from tests/language/test_values.py and test_binding.py --------------------------
    dict(
        src="test_values",
        t="What is 15% of 2,340 and -3.5 plus 12 percent?",
        d=[],
        p=[],
        q=[(15, "percent"), (2340, None), (-3.5, None), (12, "percent")],
        c=[],
    ),
    dict(
        src="test_values",
        t="at 10:30 on 2026-11-22 see COVID-19 and mp3",
        d=["2026-11-22"],
        p=[],
        q=[],
    ),
    dict(src="test_values", t="on 2026-12-01", d=["2026-12-01"], p=[], q=[]),
    dict(src="test_values", t="tomorrow and yesterday", d=["2026-11-23", "2026-11-21"], p=[]),
    dict(src="test_values", t="next Friday", d=["2026-11-27"], dopt=["2026-12-04"], p=[]),
    dict(src="test_values", t="on Sunday", d=["2026-11-29"], p=[]),
    dict(src="test_values", t="March 3rd, 2027", d=["2027-03-03"], p=[], q=[]),
    dict(src="test_values", t="3 March", d=["*-03-03"], p=[], q=[]),
    dict(src="test_values", t="February 30", d=[], p=[]),
    dict(src="test_values", t="what time is it in Tokyo?", d=[], p=["Tokyo"]),
    dict(src="test_values", t="from New York to Los Angeles", d=[], p=["New York", "Los Angeles"]),
    dict(src="test_values", t="time in Japan and in India", d=[], p=["Japan", "India"]),
    dict(src="test_values", t="is it time to eat?", d=[], p=[]),
    dict(
        src="test_values", t="convert 9:00 UTC to Paris time", d=[], p=["Paris"], popt=["UTC"], c=[]
    ),
    dict(
        src="test_values",
        t="convert 10 miles to km",
        d=[],
        p=[],
        q=[(10, "mile")],
        c=[(10, "mile", "kilometer")],
    ),
    dict(
        src="test_values",
        t="what is 1,500 ml in cups?",
        d=[],
        p=[],
        q=[(1500, "milliliter")],
        c=[(1500, "milliliter", "cup")],
    ),
    dict(src="test_values", t="find hotels in London.", d=[], p=["London"]),
    dict(src="test_values", t="flights to Washington D.C.", d=[], p=["Washington D.C."]),
    dict(
        src="test_values",
        t="from New York to London on August 15",
        d=["*-08-15"],
        p=["New York", "London"],
        q=[],
    ),
    dict(src="test_values", t="a weekend in Stratford upon Avon", d=[], p=["Stratford upon Avon"]),
    dict(src="test_values", t="a flight to Rome from Oslo", d=[], p=["Rome", "Oslo"]),
    dict(src="test_values", t="a flight in June", d=[], p=[]),
    dict(src="test_binding", t="a bus from New York to Boston", d=[], p=["New York", "Boston"]),
    dict(src="test_binding", t="restaurants in Rome", d=[], p=["Rome"]),
    dict(
        src="test_binding", t="weather in Paris, Rome and Oslo", d=[], p=["Paris", "Rome", "Oslo"]
    ),
    dict(
        src="test_binding",
        t="BMI at 6 feet and 80 kg, also at 5.6 feet and 60 kg",
        d=[],
        p=[],
        q=[(6, "foot"), (80, "kilogram"), (5.6, "foot"), (60, "kilogram")],
        c=[],
    ),
    dict(
        src="test_binding",
        t="price of 100 and a discount percentage of 10, due on January 31, 2025",
        d=["2025-01-31"],
        p=[],
        q=[(100, None), (10, None)],
        c=[],
    ),
    dict(
        src="test_binding",
        t="what time is it in Tokyo when it is 9:00 in Paris?",
        d=[],
        p=["Tokyo", "Paris"],
    ),
    # --- written: dates and places in tool-use style -------------------------------------
    dict(
        src="written",
        t="Book a table for 4 in Lyon next Friday at 7pm",
        d=["2026-11-27"],
        dopt=["2026-12-04"],
        p=["Lyon"],
        q=[(4, None)],
        c=[],
    ),
    dict(src="written", t="weather in São Paulo tomorrow", d=["2026-11-23"], p=["São Paulo"]),
    dict(
        src="written",
        t="flights from New York to Rome on 3 May 2027",
        d=["2027-05-03"],
        p=["New York", "Rome"],
        q=[],
    ),
    dict(src="written", t="what's the weather in paris tomorrow", d=["2026-11-23"], p=["paris"]),
    dict(
        src="written",
        t="hotels in Nice for the weekend of December 12",
        d=["*-12-12"],
        p=["Nice"],
        q=[],
    ),
    dict(src="written", t="is it nice outside in Berlin today?", d=["2026-11-22"], p=["Berlin"]),
    dict(
        src="written",
        t="trains from London to Reading on Monday",
        d=["2026-11-23"],
        p=["London", "Reading"],
    ),
    dict(
        src="written", t="I'm reading a report that may arrive in two weeks", d=["2026-12-06"], p=[]
    ),
    dict(src="written", t="Sales grew by 2,340 units in May", d=[], p=[], q=[(2340, None)]),
    dict(
        src="written",
        t="My meeting is on 2026-12-01 at 14:30 in Oslo",
        d=["2026-12-01"],
        p=["Oslo"],
        q=[],
    ),
    dict(src="written", t="remind me in two weeks to call Anna", d=["2026-12-06"], p=[]),
    dict(src="written", t="What's the population of Reading?", d=[], p=["Reading"]),
    dict(
        src="written",
        t="events in new york city this Saturday",
        d=["2026-11-28"],
        p=["new york city"],
    ),
    dict(src="written", t="Show me restaurants near Lake Como", d=[], p=["Lake Como|Como"]),
    dict(
        src="written",
        t="Compare the weather in Paris, Rome and Oslo on Friday",
        d=["2026-11-27"],
        p=["Paris", "Rome", "Oslo"],
    ),
    dict(src="written", t="set an alarm for 6:30 am tomorrow", d=["2026-11-23"], p=[], q=[]),
    dict(
        src="written",
        t="Schedule the review for 12/03/2026",
        d=["2026-12-03"],
        dopt=["2026-03-12"],
        p=[],
        q=[],
    ),
    dict(
        src="written",
        t="Find me a flight to Sydney departing March 3rd, 2027",
        d=["2027-03-03"],
        p=["Sydney"],
        q=[],
    ),
    dict(
        src="written", t="I was born on 4 July 1990 in Dublin", d=["1990-07-04"], p=["Dublin"], q=[]
    ),
    dict(
        src="written",
        t="book a hotel in barcelona from december 20 to december 27",
        d=["*-12-20", "*-12-27"],
        p=["barcelona"],
        q=[],
    ),
    dict(src="written", t="what was the exchange rate on 2025-01-15", d=["2025-01-15"], p=[]),
    dict(
        src="written",
        t="Get the forecast for Cape Town for the day after tomorrow",
        d=["2026-11-24"],
        p=["Cape Town"],
    ),
    dict(
        src="written",
        t="a dinner for 2 at 8 pm on Dec 24 in Vienna",
        d=["*-12-24"],
        p=["Vienna"],
        q=[(2, None)],
    ),
    dict(src="written", t="Email John about the Q3 report by Friday", d=["2026-11-27"], p=[]),
    dict(src="written", t="Translate 'good morning' to Spanish", d=[], p=[]),
    dict(src="written", t="Send the file to Maria in Madrid", d=[], p=["Madrid"]),
    dict(src="written", t="Python tutorials for beginners in Python 3.12", d=[], p=[]),
    dict(src="written", t="restaurants in Mobile, Alabama", d=[], p=["Mobile", "Alabama"]),
    dict(src="written", t="Is Split or Dubrovnik better in June?", d=[], p=["Split", "Dubrovnik"]),
    dict(
        src="written", t="What happened on 22/11/2025 in Kyiv?", d=["2025-11-22"], p=["Kyiv"], q=[]
    ),
    dict(src="written", t="deadline is Nov 30", d=["*-11-30"], p=[], q=[]),
    dict(src="written", t="plan a trip in 3 days to Marrakech", d=["2026-11-25"], p=["Marrakech"]),
    dict(
        src="written",
        t="the meeting moved from Tuesday to Thursday",
        d=["2026-11-24", "2026-11-26"],
        p=[],
    ),
    dict(
        src="written",
        t="I'll be in Chicago from 2026-12-10 through 2026-12-14",
        d=["2026-12-10", "2026-12-14"],
        p=["Chicago"],
        q=[],
    ),
    dict(src="written", t="Call mom on her birthday, the 5th of January", d=["*-01-05"], p=[]),
    dict(src="written", t="weather in Reading next week", d=[], dopt=NEXT_WEEK, p=["Reading"]),
    dict(src="written", t="what's on at the cinema in march", d=[], p=[]),
    dict(
        src="written",
        t="I have 2 meetings and 3 calls on Wed",
        d=["2026-11-25"],
        p=[],
        q=[(2, None), (3, None)],
    ),
    dict(
        src="written",
        t="Is it sunny in los angeles and san diego?",
        d=[],
        p=["los angeles", "san diego"],
    ),
    dict(
        src="written",
        t="hotels near the Eiffel Tower in Paris",
        d=[],
        p=["Paris"],
        popt=["Eiffel Tower"],
    ),
    dict(src="written", t="Book a table for Smith at 8", d=[], p=[]),
    dict(
        src="written",
        t="tickets for Hamilton in London on 12 December",
        d=["*-12-12"],
        p=["London"],
        q=[],
    ),
    dict(src="written", t="visa requirements for india", d=[], p=["india"]),
    dict(
        src="written",
        t="Get the GDP of Germany and France in 2024",
        d=[],
        p=["Germany", "France"],
        q=[],
    ),
    dict(
        src="written", t="check the score of the game last night", d=[], dopt=["2026-11-21"], p=[]
    ),
    # --- written: quantities and unit conversions ----------------------------------------
    dict(
        src="written",
        t="convert 26.2 miles to km",
        d=[],
        p=[],
        q=[(26.2, "mile")],
        c=[(26.2, "mile", "kilometer")],
    ),
    dict(
        src="written",
        t="the package weighs 5 lb, how much is that in kilograms?",
        d=[],
        q=[(5, "pound")],
        c=[(5, "pound", "kilogram")],
    ),
    dict(
        src="written",
        t="convert 100 F to C",
        d=[],
        q=[(100, "degree_Fahrenheit")],
        c=[(100, "degree_Fahrenheit", "degree_Celsius")],
    ),
    dict(
        src="written",
        t="what is 30°C in Fahrenheit?",
        d=[],
        q=[(30, "degree_Celsius")],
        c=[(30, "degree_Celsius", "degree_Fahrenheit")],
    ),
    dict(
        src="written",
        t="how many cups is 1,500 ml",
        d=[],
        q=[(1500, "milliliter")],
        c=[(1500, "milliliter", "cup")],
    ),
    dict(
        src="written", t="convert 100 USD to EUR", d=[], q=[(100, "USD")], c=[(100, "USD", "EUR")]
    ),
    dict(
        src="written",
        t="How many ounces in 2.5 kilograms?",
        d=[],
        q=[(2.5, "kilogram")],
        c=[(2.5, "kilogram", "ounce")],
    ),
    dict(
        src="written",
        t="convert 60 mph to km/h",
        d=[],
        q=[(60, "mile_per_hour")],
        c=[(60, "mile_per_hour", "kilometer_per_hour")],
    ),
    dict(src="written", t="I need 4 tickets to Rome", d=[], p=["Rome"], q=[(4, None)], c=[]),
    dict(src="written", t="Transfer 500 dollars to Alice", d=[], p=[], q=[(500, "USD")], c=[]),
    dict(src="written", t="Set the thermostat to 21 degrees in the living room", d=[], p=[], c=[]),
    dict(
        src="written",
        t="BMI for 80 kg and 1.8 m",
        d=[],
        p=[],
        q=[(80, "kilogram"), (1.8, "meter")],
        c=[],
    ),
    dict(
        src="written",
        t="a 20.2 kg parcel from Shanghai to New York",
        d=[],
        p=["Shanghai", "New York"],
        q=[(20.2, "kilogram")],
        c=[],
    ),
    dict(
        src="written",
        t="budget of $2,000 for 3 nights in Tokyo",
        d=[],
        p=["Tokyo"],
        q=[(2000, "USD"), (3, None)],
        c=[],
    ),
    dict(src="written", t="increase the price by 12 percent", d=[], q=[(12, "percent")], c=[]),
    dict(
        src="written",
        t="It's 72 degrees Fahrenheit in Miami",
        d=[],
        p=["Miami"],
        q=[(72, "degree_Fahrenheit")],
        c=[],
    ),
    dict(src="written", t="the room is 12 square meters", d=[], q=[(12, "square_meter")], c=[]),
    dict(
        src="written",
        t="drive 300 kilometers in 4 hours",
        d=[],
        q=[(300, "kilometer"), (4, "hour")],
        c=[],
    ),
    dict(
        src="written",
        t="how much is 250 grams in ounces",
        d=[],
        q=[(250, "gram")],
        c=[(250, "gram", "ounce")],
    ),
    dict(
        src="written",
        t="convert 5 liters into gallons",
        d=[],
        q=[(5, "liter")],
        c=[(5, "liter", "gallon")],
    ),
]
