// A location's position as the admin form takes it: one field "latitude, longitude" in degrees, the form a map app
// copies ("37.7749, -122.4194") or the browser's geolocation fills. It is split here into the two degree texts the
// location schema checks (range, at most 6 decimals); anything that is not two numbers is refused beside the field.

export const POSITION_FORMAT =
  "Enter the position as latitude, longitude in degrees, e.g. 37.7749, -122.4194";

const TWO_NUMBERS = /^\s*\(?\s*([+-]?\d+(?:\.\d+)?)\s*[,;\s]\s*([+-]?\d+(?:\.\d+)?)\s*\)?\s*$/;

/** "37.7749, -122.4194" → { latitude: "37.7749", longitude: "-122.4194" }; null when it is not two numbers. */
export const splitPosition = (text: string): { latitude: string; longitude: string } | null => {
  if (text.length > 100) return null;
  const match = TWO_NUMBERS.exec(text);
  if (!match) return null;
  const plain = (n: string) => n.replace(/^\+/, "");
  return { latitude: plain(match[1]!), longitude: plain(match[2]!) };
};
